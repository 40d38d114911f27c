/**
 * The web pages: sign-up, sign-in and sign-out, and Settings → Connections (the API key,
 * connected apps). Over plain HTTP for the behaviour; with Chromium at phone size and with
 * JavaScript off for "usable without JavaScript, readable on a phone".
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestServer, type TestAccount } from '../support/server.js';
import {
  HttpBrowser,
  authorizeInBrowser,
  authorizeUrl,
  codeFrom,
  formValue,
  pkce,
  registerClient,
  tokenRequest,
  signInOverHttp,
  connectApp,
} from '../support/oauth.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { startReceiver, type Receiver } from '../support/events.js';
import { mintSecret } from '../../src/domain/changes/subscriptions.js';
import { REACH_LOCAL_SERVERS } from '../support/net.js';

const PASSWORD = 'correct horse battery staple';

/** Signs a fresh HttpBrowser in; returns it. */
function signedIn(server: TestServer, email: string, password = PASSWORD): Promise<HttpBrowser> {
  return signInOverHttp(server.baseUrl, email, password, '/settings/connections');
}

/** Posts a form found on the connections page (by its action), with the page's CSRF token. */
async function submit(browser: HttpBrowser, action: string, fields: Record<string, string> = {}): Promise<Response> {
  const page = await (await browser.request('/settings/connections')).text();
  return browser.request(action, { form: { csrf: formValue(page, 'csrf'), ...fields } });
}

describe('sign-up, sign-in and sign-out', () => {
  const { server } = useTestServer({ accounts: [] });

  it('creates an account with its lists, stores an argon2id hash, and lands the person signed in where they were going', async () => {
    const browser = new HttpBrowser(server.baseUrl);
    const page = await (await browser.request('/signup')).text();
    const res = await browser.request('/signup', {
      form: {
        csrf: formValue(page, 'csrf'),
        next: '/settings/connections',
        name: 'Dora',
        email: 'dora@example.com',
        password: PASSWORD,
        timezone: 'Europe/Paris',
      },
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings/connections');
    const user = (await server.db('users').where({ email: 'dora@example.com' }).first('id', 'password_hash', 'timezone')) as {
      id: string;
      password_hash: string;
      timezone: string;
    };
    expect(user.password_hash).toMatch(/^\$argon2id\$v=19\$/);
    expect(user.password_hash).not.toContain(PASSWORD);
    expect(user.timezone).toBe('Europe/Paris');
    expect(await server.db('lists').where({ owner_id: user.id }).count({ n: '*' }).first()).toEqual({ n: 3 });
    const settings = await browser.request('/settings/connections');
    expect(settings.status).toBe(200);
    expect(await settings.text()).toContain('dora@example.com');
  });

  it.each([
    ['a short password', { password: 'short' }, /at least 10 characters/],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, /not a time zone/],
    ['a malformed email', { email: 'not-an-email' }, /not an email address/],
  ])('refuses a sign-up with %s and says why', async (_case, override, message) => {
    const browser = new HttpBrowser(server.baseUrl);
    const page = await (await browser.request('/signup')).text();
    const res = await browser.request('/signup', {
      form: { csrf: formValue(page, 'csrf'), next: '/', name: 'Eve', email: 'eve@example.com', password: PASSWORD, timezone: 'UTC', ...override },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(message);
  });

  it('refuses a sign-up without the CSRF token', async () => {
    const res = await new HttpBrowser(server.baseUrl).request('/signup', {
      form: { next: '/', name: 'Mal', email: 'mal@example.com', password: PASSWORD, timezone: 'UTC' },
    });
    expect(res.status).toBe(403);
    expect(await server.db('users').where({ email: 'mal@example.com' }).first()).toBeUndefined();
  });

  it('sends a signed-out visitor of the settings to sign-in and back', async () => {
    const res = await new HttpBrowser(server.baseUrl).request('/settings/connections');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/signin?next=%2Fsettings%2Fconnections');
  });

  it('signs out: the session row goes and the cookie no longer works', async () => {
    const ada = await server.account('Ada', PASSWORD);
    const browser = await signedIn(server, ada.email);
    expect(await server.db('sessions').where({ user_id: ada.userId }).count({ n: '*' }).first()).toEqual({ n: 1 });
    const res = await submit(browser, '/signout');
    expect(res.status).toBe(303);
    expect(await server.db('sessions').where({ user_id: ada.userId }).count({ n: '*' }).first()).toEqual({ n: 0 });
    expect((await browser.request('/settings/connections')).status).toBe(303);
  });

  it('sets a password from the command line: the new one signs in, other sessions end, a weak one is refused', async () => {
    const { setUserPassword } = await import('../../src/domain/accounts/passwords.js');
    const cid = await server.account('Cid', PASSWORD);
    const before = await signedIn(server, cid.email);
    await expect(setUserPassword(server.db, cid.userId, 'short')).rejects.toThrow(/at least 10 characters/);
    await setUserPassword(server.db, cid.userId, 'another long passphrase');
    expect((await before.request('/settings/connections')).status).toBe(303);
    await signedIn(server, cid.email, 'another long passphrase');
  });

  it('keeps no session token in the database, only its hash', async () => {
    const ada = await server.account('Ann', PASSWORD);
    const browser = await signedIn(server, ada.email);
    const cookie = (await browser.request('/settings/connections')).headers.get('set-cookie');
    expect(cookie).toBeNull();
    const rows = (await server.db('sessions').where({ user_id: ada.userId }).select('id')) as { id: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('sign-up closed', () => {
  const { server } = useTestServer({ env: { ALLOW_SIGN_UP: 'false' }, accounts: [] });

  it('refuses sign-up pages and forms when ALLOW_SIGN_UP is false, and hides the link', async () => {
    const browser = new HttpBrowser(server.baseUrl);
    expect((await browser.request('/signup')).status).toBe(403);
    const signin = await (await browser.request('/signin')).text();
    expect(signin).not.toContain('/signup');
    const res = await browser.request('/signup', { form: { csrf: formValue(signin, 'csrf'), name: 'X', email: 'x@example.com', password: PASSWORD } });
    expect(res.status).toBe(403);
  });
});

describe('Settings → Connections', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  let browser: HttpBrowser;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
    browser = await signedIn(server, ada.email);
  });

  const api = (token: string) => fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${token}` } });

  it('creates a key shown once, which works, and replaces the previous one', async () => {
    const res = await submit(browser, '/settings/connections/api-key');
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const page = await res.text();
    const key = /<code class="key">(lk_[A-Za-z0-9]{45})<\/code>/.exec(page)?.[1];
    expect(key).toBeDefined();
    expect((await api(key!)).status).toBe(200);
    expect((await api(ada.key)).status).toBe(401);
    // A reload shows the hint only.
    const reload = await (await browser.request('/settings/connections')).text();
    expect(reload).not.toContain(key!);
    expect(reload).toContain(`${key!.slice(0, 7)}…${key!.slice(-4)}`);
  });

  it('revokes the key: it answers 401 on its next call', async () => {
    const created = await (await submit(browser, '/settings/connections/api-key')).text();
    const key = /<code class="key">(lk_[A-Za-z0-9]{45})<\/code>/.exec(created)![1]!;
    const res = await submit(browser, '/settings/connections/api-key/revoke');
    expect(res.status).toBe(303);
    expect((await api(key)).status).toBe(401);
    expect(await (await browser.request('/settings/connections')).text()).toContain('You have no API key');
  });

  it('refuses key changes without the CSRF token', async () => {
    const before = (await server.db('api_keys').where({ user_id: ada.userId }).first('key_hash')) as { key_hash: string } | undefined;
    expect((await browser.request('/settings/connections/api-key', { form: {} })).status).toBe(403);
    expect((await browser.request('/settings/connections/api-key', { form: { csrf: 'forged' } })).status).toBe(403);
    expect(await server.db('api_keys').where({ user_id: ada.userId }).first('key_hash')).toEqual(before);
  });

  it('lists connected apps and disconnects one: its access token answers 401 and its refresh token 400', async () => {
    const { client, token } = await connectApp(server.baseUrl, { email: ada.email, password: PASSWORD }, 'Connected Agent');
    const accessToken = String(token.body.access_token);
    expect((await api(accessToken)).status).toBe(200);

    const page = await (await browser.request('/settings/connections')).text();
    expect(page).toContain('Connected Agent');
    expect(page).toContain(
      '<code>http://127.0.0.1:53682/callback</code> <span class="muted">— an app on this computer, port 53682</span> <span class="badge">allowed</span>',
    );
    const grant = formValue(page, 'grant');
    const res = await browser.request('/settings/connections/apps/revoke', { form: { csrf: formValue(page, 'csrf'), grant } });
    expect(res.status).toBe(303);
    expect((await api(accessToken)).status).toBe(401);
    const refresh = await tokenRequest(server.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: String(token.body.refresh_token),
      client_id: client.clientId,
    });
    expect(refresh.status).toBe(400);
    expect(await (await browser.request('/settings/connections')).text()).not.toContain('Connected Agent');
  });

  it("cannot disconnect someone else's app", async () => {
    const bea = await server.account('Bea', PASSWORD);
    const client = await registerClient(server.baseUrl, 'Bea Agent');
    const { location } = await authorizeInBrowser(new HttpBrowser(server.baseUrl), authorizeUrl(server.baseUrl, client, pkce().challenge), {
      email: bea.email,
      password: PASSWORD,
    });
    codeFrom(location);
    const beaGrant = (await server.db('oauth_payloads').where({ model: 'Grant', account_id: bea.userId }).first('id')) as { id: string };
    const page = await (await browser.request('/settings/connections')).text();
    await browser.request('/settings/connections/apps/revoke', { form: { csrf: formValue(page, 'csrf'), grant: beaGrant.id } });
    expect(await server.db('oauth_payloads').where({ model: 'Grant', id: beaGrant.id }).first('id')).toEqual({ id: beaGrant.id });
  });
});

describe('Settings → Connections: event subscriptions', () => {
  let receiver: Receiver;
  const { server } = useTestServer({ env: REACH_LOCAL_SERVERS, accounts: [], beforeClose: async () => receiver?.close() });
  beforeAll(async () => {
    receiver = await startReceiver();
  });

  it("lists a webhook made with the API key and removes it from the page; another person's stays", async () => {
    const ada = await server.account('Ada', PASSWORD);
    const bea = await server.account('Bea', PASSWORD);
    const made = await ada.sdk.POST('/event-subscriptions', { body: { url: `${receiver.url}?who=ada`, secret: mintSecret() } });
    const theirs = await bea.sdk.POST('/event-subscriptions', { body: { url: `${receiver.url}?who=bea`, secret: mintSecret() } });
    const browser = await signedIn(server, ada.email);
    const page = await (await browser.request('/settings/connections')).text();
    expect(page).toContain(`<strong>${receiver.url}?who=ada</strong>`);
    expect(page).toMatch(/Webhook · [a-z]+ · made with your API key · task\.awaitingAgent/);
    expect(page).not.toContain('who=bea');
    expect(formValue(page, 'subscription')).toBe(made.data!.id);

    const refused = await browser.request('/settings/connections/subscriptions/remove', {
      form: { csrf: formValue(page, 'csrf'), subscription: theirs.data!.id },
    });
    expect(refused.status).toBe(303);
    expect((await bea.sdk.GET('/event-subscriptions')).data!.subscriptions.map((s: { id: string }) => s.id)).toEqual([theirs.data!.id]);

    const res = await browser.request('/settings/connections/subscriptions/remove', { form: { csrf: formValue(page, 'csrf'), subscription: made.data!.id } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings/connections?done=subscription-removed');
    const after = await (await browser.request(res.headers.get('location')!)).text();
    expect(after).toContain('The event subscription was removed.');
    expect(after).toContain('No webhooks or MCP event subscriptions.');
    expect((await ada.sdk.GET('/event-subscriptions')).data!.subscriptions).toEqual([]);
  });
});

describe('consent for an app already connected', () => {
  const { server } = useTestServer({ accounts: [] });

  it('is asked once: authorizing again, in this browser or another signed-in one, returns a code without the consent page', async () => {
    const ada = await server.account('Ada', PASSWORD);
    const client = await registerClient(server.baseUrl, 'Returning Agent');
    const browser = new HttpBrowser(server.baseUrl);
    const first = await browser.follow(authorizeUrl(server.baseUrl, client, pkce().challenge));
    expect(new URL(first.url).pathname).toBe('/signin');
    const { location } = await authorizeInBrowser(browser, authorizeUrl(server.baseUrl, client, pkce().challenge), { email: ada.email, password: PASSWORD });
    codeFrom(location);

    const again = await browser.follow(authorizeUrl(server.baseUrl, client, pkce().challenge));
    expect(again.location).not.toBeNull();
    expect(codeFrom(again.location)).toBeTruthy();

    const elsewhere = await signedIn(server, ada.email);
    const there = await elsewhere.follow(authorizeUrl(server.baseUrl, client, pkce().challenge));
    expect(new URL(there.url).pathname).not.toBe('/oauth/consent');
    expect(codeFrom(there.location)).toBeTruthy();
    expect(await server.db('oauth_payloads').where({ model: 'Grant', account_id: ada.userId }).count({ n: '*' }).first()).toEqual({ n: 1 });
  });

  it('is asked again for scopes the app was not granted, and for another person', async () => {
    const ada = await server.account('Ann', PASSWORD);
    const bea = await server.account('Bea', PASSWORD);
    const client = await registerClient(server.baseUrl, 'Narrow Agent');
    const browser = new HttpBrowser(server.baseUrl);
    const narrow = authorizeUrl(server.baseUrl, client, pkce().challenge, { scope: 'openid' });
    codeFrom((await authorizeInBrowser(browser, narrow, { email: ada.email, password: PASSWORD })).location);
    const wider = await browser.follow(authorizeUrl(server.baseUrl, client, pkce().challenge));
    expect(new URL(wider.url).pathname).toBe('/oauth/consent');
    expect(await wider.res.text()).toContain('see your email address');

    const beas = await signedIn(server, bea.email);
    const theirs = await beas.follow(authorizeUrl(server.baseUrl, client, pkce().challenge, { scope: 'openid' }));
    expect(new URL(theirs.url).pathname).toBe('/oauth/consent');
  });
});

describe('pages on a phone, without JavaScript', () => {
  let ada: TestAccount;
  let chromium: TestBrowser;
  const { server } = useTestServer({ accounts: [], beforeClose: async () => chromium?.close() });
  beforeAll(async () => {
    [chromium, ada] = await Promise.all([
      launchBrowser({ viewport: { width: 360, height: 740 }, isMobile: true, javaScriptEnabled: false }),
      server.account('Ada', PASSWORD),
    ]);
  }, 120_000);

  it('signs in, connects an app and creates a key with scripts off, every page fitting a 360 px screen', async () => {
    const page = await chromium.context.newPage();
    const fits = async () => {
      // Scripts are only the app's own files, never inline: the CSP would refuse inline code.
      for (const script of await page.locator('script').all()) expect(await script.getAttribute('src')).toMatch(/^\/assets\//);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(360);
    };
    const client = await registerClient(
      server.baseUrl,
      'An Agent With A Rather Long Name That Must Wrap On Small Screens',
      'http://127.0.0.1:53682/a/very/long/callback/path/that/must/wrap/on/small/screens',
    );
    await page.goto(authorizeUrl(server.baseUrl, client, pkce().challenge));
    await fits();
    await page.fill('#email', ada.email);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(/\/oauth\/consent/), page.click('button[type=submit]')]);
    await fits();
    const redirected = page.waitForRequest((req) => req.url().startsWith(client.redirectUri));
    await page.click('button[value=allow]').catch(() => undefined);
    expect(new URL((await redirected).url()).searchParams.get('code')).toBeTruthy();
    // Nothing listens on the callback: let Chromium finish showing its error page before moving on.
    await page.waitForURL(/^chrome-error:/, { timeout: 5000 }).catch(() => undefined);
    await page.goto(`${server.baseUrl}/settings/connections`);
    await fits();
    await page.click('form[action="/settings/connections/api-key"] button');
    await fits();
    expect(await page.textContent('code.key')).toMatch(/^lk_/);
    expect(await page.textContent('main')).toContain('An Agent With A Rather Long Name');
  }, 120_000);
});
