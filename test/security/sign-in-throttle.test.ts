/** Password guesses are throttled per account (whoever guesses, from wherever) and per address; a success clears the count. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { HttpBrowser, formValue } from '../support/oauth.js';

const PASSWORD = 'correct horse battery staple';

describe('sign-in throttling', () => {
  const { server } = useTestServer({ env: { SIGNIN_MAX_FAILURES_PER_ACCOUNT: '3', SIGNIN_MAX_FAILURES_PER_ADDRESS: '1000' }, accounts: [] });
  let ada: TestAccount;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
    await server.account('Bea', PASSWORD);
  });

  async function attempt(email: string, password: string): Promise<{ status: number; page: string; retryAfter: string | null }> {
    const browser = new HttpBrowser(server.baseUrl);
    const form = await (await browser.request('/signin')).text();
    const res = await browser.request('/signin', { form: { csrf: formValue(form, 'csrf'), next: '/settings/connections', email, password } });
    return { status: res.status, page: await res.text(), retryAfter: res.headers.get('retry-after') };
  }

  it('refuses an account after 3 wrong passwords, even the right one, and says when to retry', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt(ada.email, `wrong password ${i}`)).status).toBe(401);
    const refused = await attempt(ada.email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.page).toMatch(/Too many failed sign-ins: try again in \d+ minutes/);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  });

  it('answers an email with no account exactly as one with an account', async () => {
    for (let i = 0; i < 3; i++) expect((await attempt('nobody@example.com', 'wrong password')).status).toBe(401);
    expect((await attempt('nobody@example.com', PASSWORD)).status).toBe(429);
  });

  it('leaves other accounts alone, and a success clears the count', async () => {
    const bea = (await server.db('users').where('email', 'like', 'bea%').first('email')) as { email: string };
    expect((await attempt(bea.email, 'wrong')).status).toBe(401);
    expect((await attempt(bea.email, PASSWORD)).status).toBe(303);
    for (let i = 0; i < 2; i++) expect((await attempt(bea.email, 'wrong')).status).toBe(401);
    expect((await attempt(bea.email, PASSWORD)).status).toBe(303);
  });
});
