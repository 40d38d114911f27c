/** Security regressions on the web pages: redirects after sign-in, notices by code, Secure cookies. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { HttpBrowser, formValue } from '../support/oauth.js';
import { safeNext } from '../../src/web/forms.js';

const PASSWORD = 'correct horse battery staple';

describe('web security', () => {
  const { server } = useTestServer({ accounts: [] });
  beforeAll(async () => {
    await server.account('Ada', PASSWORD);
  });

  const signIn = async (next: string) => {
    const browser = new HttpBrowser(server.baseUrl);
    const page = await (await browser.request(`/signin?next=${encodeURIComponent(next)}`)).text();
    const res = await browser.request('/signin', { form: { csrf: formValue(page, 'csrf'), next, email: (await firstEmail()) ?? '', password: PASSWORD } });
    return { browser, res };
  };
  const firstEmail = async () => ((await server.db('users').first('email')) as { email: string } | undefined)?.email;

  it.each(['/.//evil.example/phish', '/a/..//evil.example/phish', '/%2e//evil.example/phish', '//evil.example', '/\\evil.example', 'https://evil.example/'])(
    'never redirects off the site after sign-in: next=%s',
    async (next) => {
      expect(safeNext(next, '/settings/connections')).not.toMatch(/^\/\/|^\/\\|^https?:/);
      const { res } = await signIn(next);
      expect(res.status).toBe(303);
      const location = res.headers.get('location') ?? '';
      expect(new URL(location, server.baseUrl).host).toBe(new URL(server.baseUrl).host);
      expect(location).not.toMatch(/^\/\//);
    },
  );

  it('keeps a same-site next', async () => {
    const { res } = await signIn('/settings/automations?x=1');
    expect(res.headers.get('location')).toBe('/settings/automations?x=1');
  });

  it('shows no text from the query string as a service notice', async () => {
    const { browser } = await signIn('/settings/connections');
    const page = await (await browser.request('/settings/automations?notice=Your%20account%20is%20locked%3A%20call%20%2B1%20555')).text();
    expect(page).not.toContain('Your account is locked');
  });
});

describe('cookies when BASE_URL is https', () => {
  const { server } = useTestServer({ env: { BASE_URL: 'https://lists.example.org' }, accounts: [] });

  it('sets Secure on the cookies of the sign-in page, though this hop is plain http', async () => {
    // server.baseUrl is the plain-http address the test server listens on; its BASE_URL setting is https.
    const res = await fetch(`${server.baseUrl}/signin`, { redirect: 'manual' });
    const cookies = res.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie).toMatch(/;\s*secure/i);
  });
});
