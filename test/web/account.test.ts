/**
 * Settings and Settings → Account over plain HTTP: the settings index, changing the password
 * (refusals in sentences; this browser stays signed in, others are signed out), the time zone,
 * signing out everywhere, and the CSRF and sign-in checks every form has.
 */
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestServer, type TestAccount } from '../support/server.js';
import { HttpBrowser, formValue, signInOverHttp } from '../support/oauth.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { create_items } from '../../src/operations/create_items.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new long passphrase';

function signedIn(server: TestServer, email: string, password = PASSWORD): Promise<HttpBrowser> {
  return signInOverHttp(server.baseUrl, email, password, '/settings/account');
}

/** Posts a form of the account page with the page's CSRF token. */
async function post(browser: HttpBrowser, action: string, fields: Record<string, string> = {}): Promise<Response> {
  const page = await (await browser.request('/settings/account')).text();
  return browser.request(`/settings/account/${action}`, { form: { csrf: formValue(page, 'csrf'), ...fields } });
}

const signsIn = async (server: TestServer, email: string, password: string) => {
  const browser = new HttpBrowser(server.baseUrl);
  const page = await (await browser.request('/signin')).text();
  return (await browser.request('/signin', { form: { csrf: formValue(page, 'csrf'), next: '/lists', email, password } })).status === 303;
};

const sessions = async (server: TestServer, userId: string) =>
  Number(((await server.db('sessions').where({ user_id: userId }).count({ n: '*' }).first()) as { n: string | number }).n);

describe('Settings and Settings → Account', () => {
  const { server } = useTestServer({ accounts: [] });

  it('opens on an index of the settings pages, each with the settings navigation', async () => {
    const ada = await server.account('Ada', PASSWORD);
    const browser = await signedIn(server, ada.email);
    const res = await browser.request('/settings');
    expect(res.status).toBe(200);
    const page = await res.text();
    for (const href of ['/settings/account', '/settings/connections', '/settings/automations', '/settings/memory', '/settings/data'])
      expect(page).toContain(`href="${href}"`);
    expect(page).toMatch(/<a href="\/settings" aria-current="page">Settings<\/a>/);
    for (const [path, label] of [
      ['/settings/account', 'Account'],
      ['/settings/connections', 'Connections'],
      ['/settings/automations', 'Automations'],
      ['/settings/memory', 'Memory'],
      ['/settings/data', 'Your data'],
    ] as const) {
      const sub = await (await browser.request(path)).text();
      expect(sub).toMatch(new RegExp(`<nav class="settings-nav" aria-label="Settings">.*<a href="${path}" aria-current="page">${label}</a>`));
    }
  });

  it('shows the name, email and time zone with labelled fields', async () => {
    const ada = await server.account('Ann', PASSWORD);
    const browser = await signedIn(server, ada.email);
    const page = await (await browser.request('/settings/account')).text();
    expect(page).toContain(ada.email);
    expect(page).toContain('<dd>Ann</dd>');
    expect(page).toContain('<option selected>Europe/London</option>');
    expect(page).toContain('<option>UTC</option>');
    for (const id of ['current-password', 'new-password', 'timezone']) expect(page).toContain(`<label for="${id}">`);
  });

  it('refuses a wrong current password and a weak new one with a sentence, changing nothing', async () => {
    const ada = await server.account('Bea', PASSWORD);
    const browser = await signedIn(server, ada.email);
    const wrong = await post(browser, 'password', { current: 'not my password at all', password: NEW_PASSWORD });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('<p class="error" role="alert">Your current password is not the one you entered.</p>');
    const weak = await post(browser, 'password', { current: PASSWORD, password: 'short' });
    expect(weak.status).toBe(400);
    expect(await weak.text()).toContain('role="alert">Choose a password of at least 10 characters.</p>');
    expect(await signsIn(server, ada.email, PASSWORD)).toBe(true);
    expect(await signsIn(server, ada.email, NEW_PASSWORD)).toBe(false);
  });

  it('changes the password: the new one signs in, the old one does not, other browsers are out and this one stays in', async () => {
    const ada = await server.account('Cid', PASSWORD);
    const browser = await signedIn(server, ada.email);
    const other = await signedIn(server, ada.email);
    const res = await post(browser, 'password', { current: PASSWORD, password: NEW_PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings/account?done=password');
    const after = await browser.request(res.headers.get('location')!);
    expect(after.status).toBe(200);
    expect(await after.text()).toContain('Your password was changed.');
    expect((await other.request('/settings/account')).status).toBe(303);
    expect(await sessions(server, ada.userId)).toBe(1);
    expect(await signsIn(server, ada.email, NEW_PASSWORD)).toBe(true);
    expect(await signsIn(server, ada.email, PASSWORD)).toBe(false);
  });

  it('saves a time zone and refuses one that does not exist', async () => {
    const ada = await server.account('Dee', PASSWORD);
    const browser = await signedIn(server, ada.email);
    const res = await post(browser, 'timezone', { timezone: 'Europe/Berlin' });
    expect(res.status).toBe(303);
    expect(await server.db('users').where({ id: ada.userId }).first('timezone')).toEqual({ timezone: 'Europe/Berlin' });
    expect(await (await browser.request('/settings/account')).text()).toContain('<option selected>Europe/Berlin</option>');
    const bad = await post(browser, 'timezone', { timezone: 'Mars/Olympus_Mons' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('role="alert">&#39;Mars/Olympus_Mons&#39; is not a time zone; choose one such as Europe/London, or UTC.</p>');
    expect(await server.db('users').where({ id: ada.userId }).first('timezone')).toEqual({ timezone: 'Europe/Berlin' });
  });

  it('signs out everywhere: both browsers are sent to sign-in and no session is left', async () => {
    const ada = await server.account('Eve', PASSWORD);
    const one = await signedIn(server, ada.email);
    const two = await signedIn(server, ada.email);
    const bob = await server.account('Bob', PASSWORD);
    const bobs = await signedIn(server, bob.email);
    const res = await post(one, 'sign-out-everywhere');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/signin');
    expect(await sessions(server, ada.userId)).toBe(0);
    for (const browser of [one, two]) {
      const page = await browser.request('/settings/account');
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/signin?next=%2Fsettings%2Faccount');
    }
    expect((await bobs.request('/settings/account')).status).toBe(200);
  });

  it('refuses every account form without the CSRF token', async () => {
    const ada = await server.account('Fay', PASSWORD);
    const browser = await signedIn(server, ada.email);
    for (const [action, fields] of [
      ['password', { current: PASSWORD, password: NEW_PASSWORD }],
      ['timezone', { timezone: 'Asia/Tokyo' }],
      ['sign-out-everywhere', {}],
    ] as const) {
      expect((await browser.request(`/settings/account/${action}`, { form: { ...fields } })).status).toBe(403);
      expect((await browser.request(`/settings/account/${action}`, { form: { csrf: 'forged', ...fields } })).status).toBe(403);
    }
    expect(await server.db('users').where({ id: ada.userId }).first('timezone')).toEqual({ timezone: 'Europe/London' });
    expect(await sessions(server, ada.userId)).toBe(1);
    expect(await signsIn(server, ada.email, PASSWORD)).toBe(true);
  });

  it('sends a signed-out visitor to sign-in (303) and back', async () => {
    const stranger = new HttpBrowser(server.baseUrl);
    for (const path of ['/settings', '/settings/account']) {
      const res = await stranger.request(path);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/signin?next=${encodeURIComponent(path)}`);
    }
  });
});

describe('Settings, Account and Activity on a phone', () => {
  let ada: TestAccount;
  let chromium: TestBrowser;
  const { server } = useTestServer({ accounts: [], beforeClose: async () => chromium?.close() });
  beforeAll(async () => {
    [chromium, ada] = await Promise.all([launchBrowser({ viewport: { width: 360, height: 740 }, isMobile: true }), server.account('Ada', PASSWORD)]);
  }, 120_000);

  it('fits a 360 px screen, and axe finds no serious or critical violation', async () => {
    await create_items(server.context(ada), { items: [{ title: 'An item with a rather long title that has to wrap on a small screen somehow' }] });
    const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    const page = await chromium.context.newPage();
    await page.goto(`${server.baseUrl}/settings/account`);
    await page.fill('#email', ada.email);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL('**/settings/account'), page.click('button[type=submit]')]);
    for (const path of ['/settings', '/settings/account', '/activity', '/activity?only=agents', '/settings/connections']) {
      await page.goto(`${server.baseUrl}${path}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      // Evaluated through the DevTools protocol, so the page's CSP does not apply to axe itself.
      await page.evaluate(axeSource);
      const violations = (await page.evaluate(async () => {
        const run = (globalThis as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string }> }> } }).axe.run;
        return (await run()).violations.map((v) => ({ id: v.id, impact: v.impact }));
      })) as Array<{ id: string; impact: string }>;
      expect({ path, violations: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') }).toEqual({ path, violations: [] });
    }
    await page.goto(`${server.baseUrl}/activity`);
    await page.screenshot({ path: '.tmp/activity-page.png', fullPage: true });
  }, 60_000);
});
