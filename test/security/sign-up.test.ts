/**
 * Finding 16: sign-up answers the same whether or not an email has an account (the same
 * redirect to sign-in, no session); a new email gets its account, a taken one is left alone,
 * and every attempt counts against the sign-in throttle. Sign-up is open by default only when
 * BASE_URL is a loopback address.
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

  /** The parts of an answer that could tell two sign-ups apart (cookies and CSRF tokens aside). */
  const shape = (answer: Awaited<ReturnType<typeof signUp>>) => ({ status: answer.status, location: answer.location, page: answer.page });

  it('answers a taken email exactly as a new one: the same redirect to sign-in, no session either way', async () => {
    const fresh = await signUp(`new-${Date.now()}@example.com`, PASSWORD);
    const takenWrong = await signUp(ada.email, 'another long password');
    const takenRight = await signUp(ada.email, PASSWORD);
    expect(shape(fresh)).toEqual({ status: 303, location: '/signin?next=%2Fsettings%2Fconnections&notice=signed-up', page: expect.any(String) });
    expect(shape(takenWrong)).toEqual(shape(fresh));
    expect(shape(takenRight)).toEqual(shape(fresh));
    for (const answer of [fresh, takenWrong, takenRight]) {
      // Not signed in by the sign-up itself: the settings send the browser to sign-in.
      expect((await answer.browser.request('/settings/connections')).status).toBe(303);
    }
    const page = await (await fresh.browser.request('/signin?next=%2Fsettings%2Fconnections&notice=signed-up')).text();
    expect(page).toContain('Sign in with the email and password you chose to continue.');
  });

  it('makes the account for a new email and leaves a taken one as it was', async () => {
    const email = `made-${Date.now()}@example.com`;
    await signUp(email, PASSWORD);
    expect(await server.db('users').where({ email }).first('id')).toBeDefined();
    const before = await server.db('users').where({ id: ada.userId }).first('password_hash', 'name');
    await signUp(ada.email, 'another long password');
    expect(await server.db('users').where({ id: ada.userId }).first('password_hash', 'name')).toEqual(before);
    expect(await server.db('users').whereRaw('lower(email) = lower(?)', [ada.email]).pluck('id')).toEqual([ada.userId]);
  });

  it('counts every sign-up against the sign-in throttle of the email, taken or not', async () => {
    const bea = await server.account('Bea', PASSWORD);
    for (let i = 0; i < 3; i++) expect((await signUp(bea.email, `another long password ${i}`)).status).toBe(303);
    expect((await signUp(bea.email, PASSWORD)).status).toBe(429);
    const unknown = `nobody-${Date.now()}@example.com`;
    for (let i = 0; i < 3; i++) expect((await signUp(unknown, PASSWORD)).status).toBe(303);
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
