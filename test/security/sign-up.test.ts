/**
 * Finding 16: sign-up never says that an email has an account. A sign-up for a taken email is
 * a sign-in attempt: the right password signs the person in as a new account would; any other
 * gets an answer that names no account, and counts against the sign-in throttle. Sign-up is
 * open by default only when BASE_URL is a loopback address.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { HttpBrowser, formValue } from '../support/oauth.js';
import { loadConfig } from '../../src/core/config.js';

const PASSWORD = 'correct horse battery staple';

describe('sign-up without telling whether an email has an account', () => {
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

  it('answers a taken email with a wrong password without naming the account, and counts it as a failed sign-in', async () => {
    const taken = await signUp(ada.email, 'another long password');
    expect(taken.status).toBe(400);
    expect(taken.page).toContain('No account was made with this email and password. If you have an account, sign in; otherwise use another email.');
    expect(taken.page).not.toMatch(/exists|already|taken|registered/i);
    for (let i = 0; i < 2; i++) expect((await signUp(ada.email, `another long password ${i}`)).status).toBe(400);
    const throttled = await signUp(ada.email, PASSWORD);
    expect(throttled.status).toBe(429);
  });

  it('signs a taken email in with its own password, as a new account is signed in', async () => {
    const bea = await server.account('Bea', PASSWORD);
    const again = await signUp(bea.email, PASSWORD);
    const fresh = await signUp(`new-${Date.now()}@example.com`, PASSWORD);
    for (const answer of [again, fresh]) {
      expect(answer.status).toBe(303);
      expect(answer.location).toBe('/settings/connections');
      expect((await answer.browser.request('/settings/connections')).status).toBe(200);
    }
    // No second account was made for Bea.
    expect(await server.db('users').whereRaw('lower(email) = lower(?)', [bea.email]).pluck('id')).toEqual([bea.userId]);
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
