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

describe("the pages' security headers on every web answer", () => {
  const { server } = useTestServer({ accounts: [] });
  const HEADERS = {
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'content-security-policy': expect.stringContaining("default-src 'none'"),
  };
  const headersOf = (res: Response) => Object.fromEntries(Object.keys(HEADERS).map((name) => [name, res.headers.get(name)]));

  it('sends them with an htmx cell and search fragment and with the export downloads, as with pages', async () => {
    const ada = await server.account('Ada', PASSWORD);
    const list = await ada.sdk.POST('/lists', { body: { name: 'Books', properties: [{ name: 'Shelf', type: 'select', options: ['Read'] }] } });
    const shelf = list.data!.properties.find((p) => p.name === 'Shelf')!;
    const made = await ada.sdk.POST('/items', { body: { listId: list.data!.id, items: [{ title: 'Dune' }] } });
    const browser = new HttpBrowser(server.baseUrl);
    const signIn = await (await browser.request('/signin')).text();
    await browser.request('/signin', { form: { csrf: formValue(signIn, 'csrf'), next: '/lists', email: ada.email, password: PASSWORD } });
    const page = await browser.request(`/lists/${list.data!.id}?view=table`);
    expect(page.status).toBe(200);
    const csrf = formValue(await page.text(), 'csrf');
    const htmx = { 'hx-request': 'true' };
    const answers = {
      page,
      cell: await browser.request(`/items/${made.data!.items[0]!.id}/value`, {
        form: { csrf, property: shelf.id, value: 'Read', cell: '1', back: `/lists/${list.data!.id}` },
        headers: htmx,
      }),
      search: await browser.request('/search?q=dune', { headers: { ...htmx, 'hx-target': 'results' } }),
      workspace: await browser.request('/settings/data/export.json'),
      csv: await browser.request(`/settings/data/list.csv?list=${list.data!.id}`),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect([name, res.status]).toEqual([name, 200]);
      expect({ name, ...headersOf(res) }).toEqual({ name, ...HEADERS });
    }
    expect(await answers.cell.text()).toContain('<form');
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
