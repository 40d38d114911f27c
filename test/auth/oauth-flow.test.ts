/** The authorization server over HTTP: discovery, registration, the code flow, tokens and refresh. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { useTestServer, type TestAccount } from '../support/server.js';
import {
  HttpBrowser,
  authorizeInBrowser,
  authorizeUrl,
  codeFrom,
  formValue,
  pkce,
  register,
  registerClient,
  tokenRequest,
  authorizedCode,
  redeemCode,
} from '../support/oauth.js';

const PASSWORD = 'correct horse battery staple';

describe('OAuth discovery', () => {
  const { server } = useTestServer({ accounts: [] });

  it.each(['', '/mcp', '/api/v1'])(
    'serves protected-resource metadata at /.well-known/oauth-protected-resource%s naming the service and the one authorization server',
    async (suffix) => {
      const res = await fetch(`${server.baseUrl}/.well-known/oauth-protected-resource${suffix}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ resource: server.baseUrl, authorization_servers: [server.baseUrl], bearer_methods_supported: ['header'] });
    },
  );

  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])('serves authorization server metadata at %s', async (path) => {
    const res = await fetch(`${server.baseUrl}${path}`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: server.baseUrl,
      authorization_endpoint: `${server.baseUrl}/oauth/authorize`,
      token_endpoint: `${server.baseUrl}/oauth/token`,
      registration_endpoint: `${server.baseUrl}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      token_endpoint_auth_methods_supported: ['none'],
    });
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    expect(meta.grant_types_supported).not.toContain('implicit');
    // Bearer tokens only, and no side doors: no DPoP, no pushed requests, no introspection or userinfo.
    for (const absent of ['dpop_signing_alg_values_supported', 'pushed_authorization_request_endpoint', 'introspection_endpoint', 'userinfo_endpoint'])
      expect(meta[absent]).toBeUndefined();
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'offline_access']));
  });

  it('answers 401 on /mcp with WWW-Authenticate pointing at the metadata', async () => {
    const res = await fetch(`${server.baseUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource"`);
  });
});

describe('OAuth code flow', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
  });

  async function authorize(params: Record<string, string | undefined> = {}, clientName = 'Test Agent') {
    const got = await authorizedCode(server.baseUrl, { email: ada.email, password: PASSWORD }, { name: clientName, params });
    return { client: got.client, browser: got.browser, token: await redeemCode(server.baseUrl, got), location: got.location };
  }

  it('registers a public client by RFC 7591', async () => {
    const { status, body } = await register(server.baseUrl, {
      client_name: 'Registrar',
      redirect_uris: ['https://app.example.com/cb', 'http://localhost:8976/cb'],
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      client_name: 'Registrar',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['https://app.example.com/cb', 'http://localhost:8976/cb'],
    });
    expect(body.client_secret).toBeUndefined();
  });

  it('issues an ES256 JWT access token for the service, one hour, and a refresh token', async () => {
    const { token, location, client } = await authorize();
    expect(new URL(location).origin + new URL(location).pathname).toBe(client.redirectUri);
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const accessToken = String(token.body.access_token);
    expect(decodeProtectedHeader(accessToken)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const claims = decodeJwt(accessToken);
    expect(claims).toMatchObject({ iss: server.baseUrl, aud: server.baseUrl, sub: ada.userId, client_id: client.clientId });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(typeof token.body.refresh_token).toBe('string');
    const res = await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${accessToken}` } });
    expect(res.status).toBe(200);
  });

  it.each([
    ['omitted', undefined],
    ['empty', ''],
    ['unknown only', 'mcp:tools'],
    ['openid only', 'openid'],
  ])('accepts a request whose scope is %s and still issues a refresh token', async (_case, scope) => {
    const { token } = await authorize({ scope });
    expect(token.status).toBe(200);
    expect(typeof token.body.access_token).toBe('string');
    expect(typeof token.body.refresh_token).toBe('string');
  });

  it('defaults the resource to the service when the client omits it, and accepts /mcp as the resource', async () => {
    for (const resource of [undefined, `${server.baseUrl}/mcp`]) {
      const { token } = await authorize({ resource });
      expect(token.status).toBe(200);
      expect(decodeJwt(String(token.body.access_token)).aud).toBe(server.baseUrl);
    }
  });

  it('rotates the refresh token on use and refuses the old one with 400', async () => {
    const { token, client } = await authorize();
    const first = String(token.body.refresh_token);
    const refreshed = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: first, client_id: client.clientId });
    expect(refreshed.status).toBe(200);
    const second = String(refreshed.body.refresh_token);
    expect(second).not.toBe(first);
    const api = await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${String(refreshed.body.access_token)}` } });
    expect(api.status).toBe(200);
    const replay = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: first, client_id: client.clientId });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
  });

  it('skips the sign-in page for a browser already signed in, but asks again when the app says prompt=login', async () => {
    const client = await registerClient(server.baseUrl);
    const browser = new HttpBrowser(server.baseUrl);
    codeFrom((await authorizeInBrowser(browser, authorizeUrl(server.baseUrl, client, pkce().challenge), { email: ada.email, password: PASSWORD })).location);
    // Signed in now: a second authorization goes straight to the consent screen (or the app).
    const second = await browser.follow(authorizeUrl(server.baseUrl, client, pkce().challenge, { prompt: 'consent' }));
    expect(new URL(second.url).pathname).toBe('/oauth/consent');
    // prompt=login: the sign-in form again, even though the browser is signed in.
    const fresh = await browser.follow(authorizeUrl(server.baseUrl, client, pkce().challenge, { prompt: 'login' }));
    expect(new URL(fresh.url).pathname).toBe('/signin');
    expect(await fresh.res.text()).toContain('sign in again');
    const { location } = await authorizeInBrowser(browser, authorizeUrl(server.baseUrl, client, pkce().challenge, { prompt: 'login' }), {
      email: ada.email,
      password: PASSWORD,
    });
    codeFrom(location);
  });

  it('asks for sign-in again after the person signed out of the web pages', async () => {
    const client = await registerClient(server.baseUrl);
    const browser = new HttpBrowser(server.baseUrl);
    codeFrom((await authorizeInBrowser(browser, authorizeUrl(server.baseUrl, client, pkce().challenge), { email: ada.email, password: PASSWORD })).location);
    const settings = await (await browser.request('/settings/connections')).text();
    expect((await browser.request('/signout', { form: { csrf: formValue(settings, 'csrf') } })).status).toBe(303);
    const next = await browser.follow(authorizeUrl(server.baseUrl, client, pkce().challenge));
    expect(new URL(next.url).pathname).toBe('/signin');
  });

  it('logs writes through OAuth under the app name', async () => {
    const { token } = await authorize({}, 'Logbook Agent');
    const res = await fetch(`${server.baseUrl}/api/v1/lists`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${String(token.body.access_token)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Books' }),
    });
    expect(res.status).toBe(201);
    const row = (await server.db('activity').where({ user_id: ada.userId }).orderBy('id', 'desc').first('client_name', 'via_connection')) as {
      client_name: string;
      via_connection: boolean;
    };
    expect(row).toEqual({ client_name: 'Logbook Agent', via_connection: true });
  });
});
