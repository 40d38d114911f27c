/**
 * Finding 16, as it is now (SECURITY.md, "Sign-up"): a new email gets its account and the
 * browser lands signed in to it; a taken email signs no one in and leaves its account exactly
 * as it was, whatever password is sent; every attempt counts against the sign-in throttle of
 * the email. Sign-up is open by default only when BASE_URL is a loopback address.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { HttpBrowser, formValue } from '../support/oauth.js';
import { loadConfig } from '../../src/core/config.js';

const PASSWORD = 'correct horse battery staple';

describe('sign-up: a new email lands signed in, a taken one is left alone', () => {
  const { server } = useTestServer({ env: { SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3', SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000' }, accounts: [] });
  let ada: TestAccount;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
  });

  async function signUp(email: string, password: string): Promise<{ status: number; page: string; location: string | null; browser: HttpBrowser }> {
    const browser = new HttpBrowser(server.baseUrl);
    const form = await (await browser.request('/signup')).text();
    const res = await browser.request('/signup', {
      form: { csrf: formValue(form, 'csrf'), next: '/settings/connections', name: 'Someone', email, password, timezone: 'UTC' },
    });
    return { status: res.status, page: await res.text(), location: res.headers.get('location'), browser };
  }

  /** Who the browser is signed in as: the email the settings page shows, or null when it is sent to sign in. */
  async function signedInAs(browser: HttpBrowser): Promise<string | null> {
    const res = await browser.request('/settings/connections');
    if (res.status === 303) return null;
    expect(res.status).toBe(200);
    return /<span class="muted">([^<]+@[^<]+)<\/span>/.exec(await res.text())?.[1] ?? null;
  }

  it('lands a new email signed in to its new account, where the form said to go', async () => {
    const email = `new-${Date.now()}@example.com`;
    const fresh = await signUp(email, PASSWORD);
    expect(fresh.status).toBe(303);
    expect(fresh.location).toBe('/settings/connections');
    expect(await signedInAs(fresh.browser)).toBe(email);
  });

  it('signs no one in for a taken email, with its password or another, and says to sign in', async () => {
    for (const password of ['another long password', PASSWORD]) {
      const taken = await signUp(ada.email, password);
      expect(taken.status).toBe(409);
      expect(taken.page).toContain('That email already has an account');
      expect(taken.page).toContain('href="/signin?next=%2Fsettings%2Fconnections"');
      expect(await signedInAs(taken.browser)).toBeNull();
    }
  });

  it('makes the account for a new email and leaves a taken one as it was', async () => {
    const email = `made-${Date.now()}@example.com`;
    await signUp(email, PASSWORD);
    expect(await server.db('users').where({ email }).first('id')).toBeDefined();
    const before = await server.db('users').where({ id: ada.userId }).first();
    const lists = await server.db('lists').where({ owner_id: ada.userId }).orderBy('id').select('id', 'name');
    await signUp(ada.email, 'another long password');
    await signUp(ada.email.toUpperCase(), PASSWORD);
    expect(await server.db('users').where({ id: ada.userId }).first()).toEqual(before);
    expect(await server.db('lists').where({ owner_id: ada.userId }).orderBy('id').select('id', 'name')).toEqual(lists);
    expect(await server.db('users').whereRaw('lower(email) = lower(?)', [ada.email]).pluck('id')).toEqual([ada.userId]);
  });

  it('counts every sign-up against the sign-in throttle of the email, taken or not', async () => {
    const bea = await server.account('Bea', PASSWORD);
    for (let i = 0; i < 3; i++) expect((await signUp(bea.email, `another long password ${i}`)).status).toBe(409);
    const refused = await signUp(bea.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(await signedInAs(refused.browser)).toBeNull();
    // The sign-up that made an account counts too: after it and two more, the fourth is throttled.
    const unknown = `nobody-${Date.now()}@example.com`;
    expect((await signUp(unknown, PASSWORD)).status).toBe(303);
    for (let i = 0; i < 2; i++) expect((await signUp(unknown, PASSWORD)).status).toBe(409);
    expect((await signUp(unknown, PASSWORD)).status).toBe(429);
  });

  it('opens sign-up by default only on a loopback BASE_URL; an explicit setting wins', () => {
    expect(loadConfig({}).allowSignUp).toBe(true);
    expect(loadConfig({ BASE_URL: 'http://127.0.0.1:8080' }).allowSignUp).toBe(true);
    expect(loadConfig({ BASE_URL: 'http://[::1]:8080' }).allowSignUp).toBe(true);
    expect(loadConfig({ BASE_URL: 'https://lists.example.com' }).allowSignUp).toBe(false);
    expect(loadConfig({ HOST: '0.0.0.0', BASE_URL: 'http://192.168.1.20:8080' }).allowSignUp).toBe(false);
    expect(loadConfig({ BASE_URL: 'https://lists.example.com', ALLOW_SIGN_UP: 'true' }).allowSignUp).toBe(true);
    expect(loadConfig({ BASE_URL: 'http://localhost:8080', ALLOW_SIGN_UP: 'false' }).allowSignUp).toBe(false);
  });
});
