/**
 * Notifications to the person, with real receivers (test/support/notify-receivers.ts): a
 * reminder and an agent's question reach a browser by Web Push (decrypted by http_ece, the
 * VAPID signature checked), an SMTP inbox (a plain text part, the item's link, RFC 8058
 * unsubscribe headers) and an ntfy-style topic, once each; a failing channel is retried; an
 * expired push subscription and a bouncing address are dropped with a note in the settings;
 * quiet hours hold a notice until they end.
 */
import { describe, it, expect, beforeAll, afterAll, beforeEach } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { useTestServer } from '../support/server.js';
import { startTestJobs, waitFor } from '../support/jobs.js';
import { REACH_LOCAL_SERVERS } from '../support/net.js';
import { startInbox, startPushReceiver, startTopic, type Inbox, type PushReceiver, type TopicReceiver } from '../support/notify-receivers.js';
import { startOutboxPump, type OutboxPump } from '../../src/jobs/outbox.js';
import { noticeConsumer } from '../../src/jobs/notifications.js';
import { sendDueReminders } from '../../src/domain/items/reminders.js';
import { notificationKeys } from '../../src/domain/notifications/keys.js';
import { addPushSubscription, readSettings, saveSettings, pushSubscriptions } from '../../src/domain/notifications/settings.js';
import { localParts } from '../../src/domain/time.js';
import type { Jobs } from '../../src/jobs/queue.js';

const dataDir = mkdtemp(path.join(os.tmpdir(), 'lk-notify-'));
let push: PushReceiver;
let inbox: Inbox;
let topic: TopicReceiver;
const ready = Promise.all([startInbox(), startTopic()]).then(([i, t]) => {
  inbox = i;
  topic = t;
});

let dir = '';
// Before the suite's server starts: its settings name the inbox and the data folder.
beforeAll(async () => {
  dir = await dataDir;
  await ready;
});

describe('notifications', () => {
  let jobs: Jobs;
  let pump: OutboxPump;
  const { server, ada } = useTestServer({
    env: () => ({
      LISTKEEPER_DATA_DIR: dir,
      SMTP_URL: inbox.url,
      SMTP_FROM: 'listkeeper <notify@example.com>',
      ...REACH_LOCAL_SERVERS,
      WEBHOOK_RETRY_BASE_SECONDS: '1',
      WEBHOOK_TIMEOUT_MS: '3000',
    }),
    beforeClose: async () => {
      await pump?.stop();
      await jobs?.stop();
    },
  });
  beforeAll(async () => {
    push = await startPushReceiver(() => notificationKeys(dir).vapidPublicKey);
    jobs = await startTestJobs(server);
    pump = startOutboxPump(
      server.db,
      noticeConsumer({ db: server.db, jobs, log: pino({ level: 'silent' }), now: () => new Date(), config: server.config }),
      pino({ level: 'silent' }),
      100,
    );
  });
  afterAll(async () => {
    await Promise.all([push?.close(), inbox?.close(), topic?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    push.received.length = 0;
    inbox.messages.length = 0;
    topic.received.length = 0;
    await server.db('notification_settings').delete();
    await server.db('push_subscriptions').delete();
    await addPushSubscription(server.db, ada.userId, { endpoint: push.subscription.endpoint, ...push.subscription.keys, browser: 'Test browser' });
    await saveSettings(server.db, ada.userId, { pushOn: true, emailOn: true, topicOn: true, topicUrl: topic.url });
  });

  /** A task whose reminder time has come, sent as the reminder loop sends it; its id. */
  async function remind(title: string): Promise<string> {
    const made = await ada.sdk.POST('/items', {
      body: {
        listId: 'tasks',
        items: [{ title, dueAt: new Date(Date.now() + 3_600_000).toISOString(), reminderAt: new Date(Date.now() - 1000).toISOString() }],
      },
    });
    await sendDueReminders(server.db, new Date());
    return made.data!.items[0]!.id;
  }

  /** Waits until the notices since `since` have `count` deliveries, none of them still pending (quiet hours aside). */
  const settled = (since: Date, count: number) =>
    waitFor(async () => {
      const rows = (await server.db('notification_deliveries').where('created_at', '>=', since)) as { status: string; not_before: Date | null }[];
      const open = rows.filter((r) => r.status === 'pending' && !(r.not_before && r.not_before > new Date()));
      return rows.length === count && open.length === 0 ? rows : undefined;
    }, 30_000);

  it('sends a reminder by Web Push, email and the topic, once each', async () => {
    const since = new Date();
    const id = await remind('Pay the rent');
    await settled(since, 3);
    const page = `${server.config.webOrigin}/artifacts/${id}`;
    expect(push.received).toEqual([{ title: 'Reminder: Pay the rent', body: expect.stringMatching(/^Due /), url: page, tag: `reminder:${id}` }]);
    expect(topic.received).toEqual([{ title: 'Reminder: Pay the rent', click: page, tags: 'bell', body: expect.stringMatching(/^Due /) }]);
    expect(inbox.messages).toHaveLength(1);
    const mail = inbox.messages[0]!;
    expect(mail.subject).toBe('Reminder: Pay the rent');
    expect(mail.to).toMatchObject({ value: [{ address: ada.email }] });
    expect(mail.html).toBe(false);
    expect(mail.text).toContain(`Open it: ${page}`);
    // RFC 8058: the link in List-Unsubscribe, and List-Unsubscribe-Post saying it takes a one-click POST; the same link in the text.
    const header = (name: string) => mail.headerLines.find((h) => h.key === name)?.line ?? '';
    const unsubscribe = /<(https?:[^>]+)>/.exec(header('list-unsubscribe'))?.[1];
    expect(unsubscribe).toMatch(new RegExp(`^${server.baseUrl}/notifications/unsubscribe\\?token=`));
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(mail.text).toContain(unsubscribe);

    // Handling the outbox again, or the reminder loop again, sends nothing more.
    await pump.drain();
    expect(await sendDueReminders(server.db, new Date())).toBe(0);
    await settled(since, 3);
    expect([push.received.length, inbox.messages.length, topic.received.length]).toEqual([1, 1, 1]);
  });

  it('sends an agent’s question (needsInput) with its text', async () => {
    const since = new Date();
    const [item] = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Plan the trip' }] } })).data!.items;
    await ada.sdk.POST('/items/{id}/messages', {
      params: { path: { id: item!.id } },
      body: { message: 'Train or plane?', agentName: 'Scout', needsInput: true },
    });
    await ada.sdk.POST('/items/{id}/messages', { params: { path: { id: item!.id } }, body: { message: 'Booked nothing yet.', agentName: 'Scout' } });
    await settled(since, 3);
    expect(push.received).toEqual([
      {
        title: 'Scout needs your answer',
        body: 'Plan the trip: Train or plane?',
        url: `${server.config.webOrigin}/artifacts/${item!.id}`,
        tag: `question:${item!.id}`,
      },
    ]);
    expect(inbox.messages.map((m) => m.subject)).toEqual(['Scout needs your answer']);
    expect(topic.received.map((m) => m.tags)).toEqual(['question']);
  });

  it('retries a channel that fails, and sends once when it answers', async () => {
    topic.answers.push(503);
    push.answers.push(500);
    const since = new Date();
    await remind('Water the plants');
    await settled(since, 3);
    expect([push.received.length, topic.received.length]).toEqual([1, 1]);
    const attempts = (await server
      .db('notification_deliveries')
      .whereIn('channel', ['push', 'topic'])
      .orderBy('created_at', 'desc')
      .limit(2)
      .pluck('attempts')) as number[];
    expect(attempts).toEqual([2, 2]);
  });

  it('drops an expired push subscription and a bouncing address, with a note in the settings', async () => {
    push.answers.push(410);
    inbox.bounce.add(ada.email);
    const since = new Date();
    await remind('Renew the passport');
    await settled(since, 3);
    inbox.bounce.clear();
    expect(await pushSubscriptions(server.db, ada.userId)).toEqual([]);
    const settings = await readSettings(server.db, ada.userId);
    expect(settings.emailOn).toBe(false);
    expect(settings.notes.push).toMatch(/push subscription \(Test browser\) expired .* turn push on again in that browser/);
    expect(settings.notes.email).toMatch(new RegExp(`Mail to ${ada.email.replace('.', '\\.')} was refused for good .* turned off`));
    const statuses = (await server
      .db('notification_deliveries')
      .whereIn('channel', ['push', 'email'])
      .orderBy('created_at', 'desc')
      .limit(2)
      .pluck('status')) as string[];
    expect(statuses).toEqual(['dropped', 'dropped']);
    // The topic still works, and the dropped channels get nothing more.
    await remind('Renew the car tax');
    await settled(since, 4);
    expect(topic.received.map((m) => m.title)).toEqual(['Reminder: Renew the passport', 'Reminder: Renew the car tax']);
    expect(push.received).toEqual([]);
    expect(inbox.messages).toEqual([]);
  });

  it('holds a notice in quiet hours until they end, in the person’s zone', async () => {
    const now = localParts(new Date(), 'Europe/London');
    const two = (n: number) => String(n).padStart(2, '0');
    // Quiet from an hour ago to two hours from now (London, Ada's zone), across midnight when it falls so.
    const start = `${two((now.hour + 23) % 24)}:${two(now.minute)}`;
    const end = `${two((now.hour + 2) % 24)}:${two(now.minute)}`;
    await saveSettings(server.db, ada.userId, { quiet: { start, end } });
    await remind('Quiet, please');
    await waitFor(async () => {
      const rows = (await server.db('notification_deliveries').whereNotNull('job_id').whereNot('job_id', 'queuing').orderBy('created_at', 'desc').limit(3)) as {
        job_id: string;
        not_before: Date | null;
      }[];
      return rows.length === 3 && rows.every((r) => r.not_before) ? rows : undefined;
    });
    const rows = (await server.db('notification_deliveries').orderBy('created_at', 'desc').limit(3)) as { job_id: string; not_before: Date; status: string }[];
    const inTwoHours = Date.now() + 2 * 3_600_000;
    for (const row of rows) {
      expect(Math.abs(row.not_before.getTime() - inTwoHours)).toBeLessThan(90_000);
      const job = (await server.db.raw('SELECT start_after FROM pgboss.job WHERE id = ?', [row.job_id])) as { rows: { start_after: Date }[] };
      expect(job.rows[0]!.start_after.getTime()).toBe(row.not_before.getTime());
      expect(row.status).toBe('pending');
    }
    expect([push.received.length, inbox.messages.length, topic.received.length]).toEqual([0, 0, 0]);
  });
});
