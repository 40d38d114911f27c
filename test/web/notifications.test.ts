/**
 * Settings → Notifications and Settings → Phone and calendar apps, and the one-click
 * unsubscribe of an email. Over plain HTTP for the forms (what app.js posts for a browser's
 * subscription included); in Chromium for the service worker, which shows a pushed message
 * as a notification that opens the item (the DevTools protocol delivers the push: headless
 * Chromium has no push service to subscribe to offline), for axe-core, and for the screenshot
 * of the page (written under .tmp/screenshots, never into the committed docs/).
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { useTestServer, type TestAccount } from '../support/server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { waitFor } from '../support/jobs.js';
import { formValue, signInOverHttp, type HttpBrowser } from '../support/oauth.js';
import { notificationKeys, unsubscribeToken } from '../../src/domain/notifications/keys.js';
import { addPushSubscription, pushSubscriptions, readSettings, saveSettings } from '../../src/domain/notifications/settings.js';
import { finishDelivery, planDeliveries } from '../../src/domain/notifications/deliveries.js';

const PASSWORD = 'correct horse battery staple';
const SCREENSHOTS = path.resolve(process.env.SCREENSHOTS_DIR ?? '.tmp/screenshots');
const dataDir = mkdtemp(path.join(os.tmpdir(), 'lk-web-notify-'));
let dir = '';
beforeAll(async () => {
  dir = await dataDir;
});

describe('notification and calendar app settings', () => {
  const { server } = useTestServer({
    env: () => ({ LISTKEEPER_DATA_DIR: dir, SMTP_URL: 'smtp://127.0.0.1:2525' }),
    accounts: [],
    beforeClose: async () => chromium?.close(),
  });
  let chromium: TestBrowser | undefined;
  let ada: TestAccount;
  let web: HttpBrowser;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD, 'ada@example.com');
    web = await signInOverHttp(server.baseUrl, ada.email, PASSWORD, '/settings/notifications');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const csrfOf = async (route: string) => formValue(await (await web.request(route)).text(), 'csrf');

  it('saves the channels, the address and quiet hours from the form, and shows a refusal in the page', async () => {
    const csrf = await csrfOf('/settings/notifications');
    const saved = await web.request('/settings/notifications', {
      form: { csrf, emailOn: 'on', emailAddress: 'ada@home.example.org', emailReminders: 'on', quietStart: '22:00', quietEnd: '07:00', topicUrl: '' },
    });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/settings/notifications?done=saved');
    expect(await readSettings(server.db, ada.userId)).toMatchObject({
      pushOn: false,
      emailOn: true,
      emailAddress: 'ada@home.example.org',
      emailKinds: { reminder: true, question: false },
      quietStart: '22:00',
      quietEnd: '07:00',
    });
    const refused = await web.request('/settings/notifications', { form: { csrf, topicOn: 'on', topicUrl: 'http://ntfy.example/x' } });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('topicUrl must be https; received http.');
    expect((await readSettings(server.db, ada.userId)).topicOn).toBe(false);
  });

  it('keeps the subscription a browser’s script posts, and removes a browser', async () => {
    const csrf = await csrfOf('/settings/notifications');
    const posted = await web.request('/settings/notifications/push', {
      form: { csrf, endpoint: 'https://1.1.1.1/push/ada', p256dh: 'BKey', auth: 'secret', browser: 'Chrome on Linux' },
      headers: { accept: 'application/json' },
    });
    expect(posted.status).toBe(200);
    expect(await posted.json()).toEqual({ ok: true, next: '/settings/notifications?done=push-on' });
    const [browser] = await pushSubscriptions(server.db, ada.userId);
    expect(browser).toMatchObject({ endpoint: 'https://1.1.1.1/push/ada', browser: 'Chrome on Linux' });
    expect((await readSettings(server.db, ada.userId)).pushOn).toBe(true);
    const page = await (await web.request('/settings/notifications')).text();
    expect(page).toContain(`data-vapid-key="${notificationKeys(dir).vapidPublicKey}"`);
    expect(page).toContain('Chrome on Linux');
    const removed = await web.request('/settings/notifications/push/remove', { form: { csrf, id: browser!.id } });
    expect(removed.headers.get('location')).toBe('/settings/notifications?done=push-removed');
    expect(await pushSubscriptions(server.db, ada.userId)).toEqual([]);
  });

  it('stops one kind of mail with the one-click POST of an email (RFC 8058); a GET only asks', async () => {
    const link = `/notifications/unsubscribe?token=${encodeURIComponent(unsubscribeToken(notificationKeys(dir), ada.userId, 'reminder'))}`;
    const asked = await fetch(new URL(link, server.baseUrl));
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Stop emails about task reminders?');
    expect((await readSettings(server.db, ada.userId)).emailKinds.reminder).toBe(true);
    const oneClick = await fetch(new URL(link, server.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect((await readSettings(server.db, ada.userId)).emailKinds).toEqual({ reminder: false, question: false });
    const forged = await fetch(new URL(`/notifications/unsubscribe?token=${ada.userId}.question.AAAA`, server.baseUrl), { method: 'POST' });
    expect(forged.status).toBe(404);
  });

  it('makes an app password shown once, which signs a CalDAV client in, and revokes it', async () => {
    const csrf = await csrfOf('/settings/calendar');
    const made = await web.request('/settings/calendar/passwords', { form: { csrf, name: 'Phone' } });
    expect(made.status).toBe(201);
    const password = /<code class="key">([^<]+)<\/code>/.exec(await made.text())![1]!;
    const propfind = () =>
      fetch(`${server.baseUrl}/dav/`, {
        method: 'PROPFIND',
        headers: { depth: '0', authorization: `Basic ${Buffer.from(`${ada.email}:${password}`).toString('base64')}` },
      });
    expect((await propfind()).status).toBe(207);
    const page = await (await web.request('/settings/calendar')).text();
    expect(page).not.toContain(password);
    expect(page).toContain('Tasks, Life Admin');
    const id = /name="id" value="([0-9a-f-]{36})"/.exec(page)![1]!;
    expect((await web.request('/settings/calendar/passwords/revoke', { form: { csrf, id } })).status).toBe(303);
    expect((await propfind()).status).toBe(401);
  });

  /** What the screenshot shows: every channel on, a phone and this browser, and the latest deliveries. */
  async function showcase(): Promise<void> {
    await saveSettings(server.db, ada.userId, {
      pushOn: true,
      emailOn: true,
      emailAddress: null,
      emailKinds: { reminder: true, question: true },
      topicOn: true,
      topicUrl: 'https://ntfy.sh/ada-tasks-7f3k',
      quiet: { start: '22:00', end: '07:00' },
    });
    await addPushSubscription(server.db, ada.userId, { endpoint: 'https://1.1.1.1/push/phone', p256dh: 'k', auth: 'a', browser: 'Chrome on Android' });
    const [task] = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Pay the rent' }] } })).data!.items;
    for (const [kind, title] of [
      ['question', 'Book the ferry'],
      ['reminder', 'Pay the rent'],
    ] as const) {
      const notice = {
        noticeId: randomUUID(),
        kind,
        userId: ada.userId,
        itemId: task!.id,
        title,
        agentName: 'Scout',
        text: 'Morning or evening crossing?',
        occurredAt: new Date().toISOString(),
      };
      for (const { id } of await planDeliveries(server.db, notice, new Date(Date.now() - 9 * 3_600_000), (i) => `${server.baseUrl}/artifacts/${i}`))
        await finishDelivery(server.db, id, 'sent', new Date());
    }
  }

  it('shows a pushed message as a notification that opens the item; the page passes axe-core (screenshot)', async () => {
    await showcase();
    chromium = await launchBrowser({ viewport: { width: 1100, height: 1200 } });
    await chromium.context.grantPermissions(['notifications'], { origin: server.baseUrl });
    const page = await chromium.context.newPage();
    await page.goto(`${server.baseUrl}/signin?next=/settings/notifications`);
    await page.fill('#email', ada.email);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL('**/settings/notifications'), page.click('button[type=submit]')]);
    await page.evaluate(() => navigator.serviceWorker.ready);
    const cdp = await chromium.context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event: { registrations: { registrationId: string; scopeURL: string }[] }) =>
      registrations.push(...event.registrations),
    );
    await cdp.send('ServiceWorker.enable');
    // Chromium reports the registrations once the domain is on.
    await waitFor(async () => (registrations.some((r) => r.scopeURL === `${server.baseUrl}/`) ? true : undefined));
    const url = `${server.baseUrl}/artifacts/6f1c2f5e-5b8e-4f61-9a37-2b1f0c9d8e7a`;
    const message = JSON.stringify({ title: 'Reminder: Pay the rent', body: 'Due Mon 1 Dec, 09:00.', url, tag: 'reminder:rent' });
    const registrationId = registrations.find((r) => r.scopeURL === `${server.baseUrl}/`)!.registrationId;
    // A push the protocol delivers before it has attached to the running worker is dropped, so
    // it is delivered until one shows; each shows under the same tag, replacing the one before.
    const shown = await waitFor(async () => {
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: server.baseUrl, registrationId, data: message });
      const notes = await page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data as unknown })),
      );
      return notes.length ? notes : undefined;
    });
    expect(shown).toEqual([{ title: 'Reminder: Pay the rent', body: 'Due Mon 1 Dec, 09:00.', tag: 'reminder:rent', data: { url } }]);

    await page.evaluate(await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
    const result = (await page.evaluate(() =>
      (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } }).axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      }),
    )) as { violations: { id: string; impact: string | null }[] };
    expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'notifications.png'), fullPage: true });
  });
});
