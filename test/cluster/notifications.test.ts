/**
 * Notifications with two processes: two built listkeeper processes started at once on one
 * database and one data folder (so one pair of VAPID keys), both polling for reminders and
 * both running the job queue. Reminders due while both run, and an agent's question, reach a
 * browser by Web Push (decrypted), an SMTP inbox and an HTTP topic exactly once each; so does
 * a reminder whose time comes while both are down, once they are started again.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { addPushSubscription, saveSettings } from '../../src/domain/notifications/settings.js';
import { startServiceProcess, type ServiceProcess } from '../support/cluster.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { waitFor } from '../support/jobs.js';
import { REACH_LOCAL_SERVERS } from '../support/net.js';
import { startInbox, startPushReceiver, startTopic, type Inbox, type PushReceiver, type TopicReceiver } from '../support/notify-receivers.js';

describe('notifications with two processes', () => {
  let database: TestDatabase;
  let dir: string;
  let vapidPublicKey = '';
  const processes: ServiceProcess[] = [];
  let push: PushReceiver;
  let inbox: Inbox;
  let topic: TopicReceiver;
  let key = '';
  let env: Record<string, string> = {};

  async function call(base: string, method: string, route: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${base}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as Record<string, unknown>;
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-notify-cluster-'));
    database = await createTestDatabase();
    [push, inbox, topic] = await Promise.all([startPushReceiver(() => vapidPublicKey), startInbox(), startTopic()]);
    env = {
      DATABASE_URL: database.url,
      LISTKEEPER_DATA_DIR: dir,
      SMTP_URL: inbox.url,
      SMTP_FROM: 'listkeeper <notify@example.com>',
      ...REACH_LOCAL_SERVERS,
      EMBEDDINGS: 'none',
      REMINDER_POLL_SECONDS: '1',
      JOB_MAINTENANCE_SECONDS: '1',
      WEBHOOK_RETRY_BASE_SECONDS: '1',
      WEBHOOK_TIMEOUT_MS: '3000',
    };
    // Both at once, on a database nobody migrated yet and a data folder with no keys yet.
    const started = await Promise.all([startServiceProcess('a', env), startServiceProcess('b', env)]);
    processes.push(...started);
    vapidPublicKey = (JSON.parse(await readFile(path.join(dir, 'notification-keys.json'), 'utf8')) as { vapidPublicKey: string }).vapidPublicKey;
    const user = await createUser(database.knex, { email: 'ada@example.com', name: 'Ada', timezone: 'Europe/London' });
    key = await createApiKey(database.knex, user.id);
    await addPushSubscription(database.knex, user.id, { endpoint: push.subscription.endpoint, ...push.subscription.keys, browser: 'Test browser' });
    await saveSettings(database.knex, user.id, { pushOn: true, emailOn: true, topicOn: true, topicUrl: topic.url });
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await Promise.all([push?.close(), inbox?.close(), topic?.close()]);
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('sends each reminder and question exactly once by each channel', async () => {
    const [a, b] = processes as [ServiceProcess, ServiceProcess];
    const soon = (ms: number) => new Date(Date.now() + ms).toISOString();
    const due = soon(3_600_000);
    // Made through both processes; their time comes while both poll.
    const made = await Promise.all([
      call(a.url, 'POST', '/items', { listId: 'tasks', items: [1, 2, 3].map((n) => ({ title: `Reminder A${n}`, dueAt: due, reminderAt: soon(2000) })) }),
      call(b.url, 'POST', '/items', { listId: 'tasks', items: [1, 2, 3].map((n) => ({ title: `Reminder B${n}`, dueAt: due, reminderAt: soon(2500) })) }),
    ]);
    const ids = made.flatMap((m) => (m.items as { id: string }[]).map((i) => i.id));
    await call(b.url, 'POST', `/items/${ids[0]}/messages`, { message: 'Which day suits you?', agentName: 'Scout', needsInput: true });

    const expected = [...['A1', 'A2', 'A3', 'B1', 'B2', 'B3'].map((n) => `Reminder: Reminder ${n}`), 'Scout needs your answer'].sort();
    // Done when every delivery of the seven notices (three channels each) has finished.
    await waitFor(async () => {
      const rows = (await database.knex('notification_deliveries').select('status')) as { status: string }[];
      return rows.length === 21 && rows.every((r) => r.status !== 'pending') ? true : undefined;
    }, 60_000);
    expect(await database.knex('notification_deliveries').distinct('status').pluck('status')).toEqual(['sent']);
    expect(push.received.map((m) => m.title).sort()).toEqual(expected);
    expect(inbox.messages.map((m) => m.subject).sort()).toEqual(expected);
    expect(topic.received.map((m) => m.title).sort()).toEqual(expected);
    // Both processes were there to send: each ran for the whole test.
    expect(processes.every((p) => p.running())).toBe(true);
  }, 120_000);

  it('sends a reminder once after both processes were killed before its time and started again', async () => {
    const before = { push: push.received.length, mail: inbox.messages.length, topic: topic.received.length };
    const since = new Date();
    await call(processes[0]!.url, 'POST', '/items', {
      listId: 'tasks',
      items: [{ title: 'After the restart', dueAt: new Date(Date.now() + 3_600_000).toISOString(), reminderAt: new Date(Date.now() + 4000).toISOString() }],
    });
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    const restarted = await Promise.all([startServiceProcess('a2', env), startServiceProcess('b2', env)]);
    processes.splice(0, processes.length, ...restarted);
    await waitFor(async () => {
      const rows = (await database.knex('notification_deliveries').where('created_at', '>=', since).select('status')) as { status: string }[];
      return rows.length === 3 && rows.every((r) => r.status !== 'pending') ? true : undefined;
    }, 60_000);
    const title = 'Reminder: After the restart';
    expect(push.received.slice(before.push).map((m) => m.title)).toEqual([title]);
    expect(inbox.messages.slice(before.mail).map((m) => m.subject)).toEqual([title]);
    expect(topic.received.slice(before.topic).map((m) => m.title)).toEqual([title]);
  }, 120_000);
});
