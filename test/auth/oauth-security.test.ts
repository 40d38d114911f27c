/**
 * What the authorization server and the token verifier refuse: open redirects, redirect
 * URIs that differ (port included), PKCE missing or downgraded, code replay, tokens for
 * another audience, expired or forged tokens, revoked refresh tokens, cross-site forms.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { generateKeyPair, importJWK, SignJWT, decodeJwt, type JWK } from 'jose';
import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  registerClient as registerWithSdk,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
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

describe('OAuth security', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
  });

  const person = () => ({ email: ada.email, password: PASSWORD });
  const api = (token: string) => fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${token}` } });

  /** A full authorization with a fresh client: code, verifier and the token response. */
  async function authorized(redirectUri?: string) {
    const got = await authorizedCode(server.baseUrl, person(), { name: 'Security Agent', ...(redirectUri ? { redirectUri } : {}) });
    const token = await redeemCode(server.baseUrl, got);
    expect(token.status).toBe(200);
    const { client, code, verifier } = got;
    return { client, code, verifier, accessToken: String(token.body.access_token), refreshToken: String(token.body.refresh_token) };
  }

  describe('redirect URIs', () => {
    it.each([
      ['another host', 'https://evil.example/callback'],
      ['another port', 'http://127.0.0.1:53683/callback'],
      ['localhost instead of 127.0.0.1', 'http://localhost:53682/callback'],
      ['a longer path', 'http://127.0.0.1:53682/callback/evil'],
      ['an added query', 'http://127.0.0.1:53682/callback?next=https://evil.example'],
      ['a trailing slash', 'http://127.0.0.1:53682/callback/'],
      ['https instead of http', 'https://127.0.0.1:53682/callback'],
    ])('refuses an unregistered redirect_uri (%s) without redirecting anywhere', async (_case, redirectUri) => {
      const client = await registerClient(server.baseUrl);
      const browser = new HttpBrowser(server.baseUrl);
      const res = await browser.request(authorizeUrl(server.baseUrl, client, pkce().challenge, { redirect_uri: redirectUri }));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toMatch(/redirect_uri/);
    });

    it('refuses an authorization request without redirect_uri even with one registered', async () => {
      const client = await registerClient(server.baseUrl);
      const res = await new HttpBrowser(server.baseUrl).request(authorizeUrl(server.baseUrl, client, pkce().challenge, { redirect_uri: undefined }));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('refuses a code exchange whose redirect_uri differs from the authorization request (port)', async () => {
      const client = await registerClient(server.baseUrl, 'Two Ports', 'http://127.0.0.1:53682/callback');
      const { verifier, challenge } = pkce();
      const { location } = await authorizeInBrowser(new HttpBrowser(server.baseUrl), authorizeUrl(server.baseUrl, client, challenge), person());
      const token = await tokenRequest(server.baseUrl, {
        grant_type: 'authorization_code',
        code: codeFrom(location),
        code_verifier: verifier,
        client_id: client.clientId,
        redirect_uri: 'http://127.0.0.1:53999/callback',
      });
      expect(token.status).toBe(400);
      expect(token.body.error).toBe('invalid_grant');
    });

    it.each([
      ['http on a public host', { redirect_uris: ['http://evil.example/callback'] }, 'invalid_redirect_uri'],
      ['a javascript: URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
      ['a custom scheme', { redirect_uris: ['myapp://callback'] }, 'invalid_redirect_uri'],
      ['a fragment', { redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri'],
      ['no redirect URI', { redirect_uris: [] }, 'invalid_redirect_uri'],
      ['a client secret method', { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
      ['the implicit flow', { redirect_uris: ['https://app.example/cb'], response_types: ['token'], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ])('refuses to register a client with %s', async (_case, metadata, error) => {
      const { status, body } = await register(server.baseUrl, { client_name: 'Bad', ...metadata });
      expect(status).toBe(400);
      expect(body.error).toBe(error);
    });

    it('matches the port exactly even for a client that registers as a native app', async () => {
      const { status, body } = await register(server.baseUrl, {
        client_name: 'Native',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1:41000/cb'],
      });
      expect(status).toBe(201);
      const client = { clientId: String(body.client_id), redirectUri: 'http://127.0.0.1:41001/cb' };
      const res = await new HttpBrowser(server.baseUrl).request(authorizeUrl(server.baseUrl, client, pkce().challenge));
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it.each(['https://evil.example/', '//evil.example/', '/\\evil.example/', 'javascript:alert(1)', '/%2F%2Fevil.example'])(
      'keeps the browser on the site after sign-in with next=%s',
      async (next) => {
        const browser = new HttpBrowser(server.baseUrl);
        const page = await (await browser.request(`/signin?next=${encodeURIComponent(next)}`)).text();
        const res = await browser.request('/signin', { form: { csrf: formValue(page, 'csrf'), next, email: ada.email, password: PASSWORD } });
        expect(res.status).toBe(303);
        const location = new URL(res.headers.get('location')!, server.baseUrl);
        expect(location.origin).toBe(server.baseUrl);
      },
    );
  });

  describe('PKCE', () => {
    const startWith = async (params: Record<string, string | undefined>) => {
      const client = await registerClient(server.baseUrl);
      const { location } = await authorizeInBrowser(new HttpBrowser(server.baseUrl), authorizeUrl(server.baseUrl, client, pkce().challenge, params), person());
      return new URL(location!);
    };

    it.each([
      ['no code_challenge', { code_challenge: undefined, code_challenge_method: undefined }],
      ['the plain method', { code_challenge_method: 'plain' }],
      ['a challenge without method', { code_challenge_method: undefined }],
    ])('refuses an authorization request with %s', async (_case, params) => {
      const location = await startWith(params);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('code')).toBeNull();
    });

    it.each([
      ['without code_verifier', undefined],
      ['with a wrong code_verifier', 'x'.repeat(43)],
      ['with the challenge as verifier (plain downgrade)', 'challenge'],
    ])('refuses the code exchange %s', async (_case, verifierCase) => {
      const client = await registerClient(server.baseUrl);
      const { challenge } = pkce();
      const { location } = await authorizeInBrowser(new HttpBrowser(server.baseUrl), authorizeUrl(server.baseUrl, client, challenge), person());
      const params: Record<string, string> = {
        grant_type: 'authorization_code',
        code: codeFrom(location),
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
      };
      if (verifierCase) params.code_verifier = verifierCase === 'challenge' ? challenge : verifierCase;
      const token = await tokenRequest(server.baseUrl, params);
      expect(token.status).toBe(400);
      expect(token.body.error).toBe('invalid_grant');
    });
  });

  describe('codes and refresh tokens', () => {
    it('refuses a replayed code and revokes what the first exchange issued', async () => {
      const { client, code, verifier, accessToken, refreshToken } = await authorized();
      const replay = await redeemCode(server.baseUrl, { client, code, verifier });
      expect(replay.status).toBe(400);
      expect(replay.body.error).toBe('invalid_grant');
      expect((await api(accessToken)).status).toBe(401);
      expect((await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId })).status).toBe(400);
    });

    it('refuses a refresh token of another client', async () => {
      const { refreshToken } = await authorized();
      const other = await registerClient(server.baseUrl, 'Other');
      const res = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: other.clientId });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it('answers 400 for a refresh token revoked at the revocation endpoint', async () => {
      const { client, refreshToken } = await authorized();
      const revoked = await fetch(`${server.baseUrl}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: refreshToken, client_id: client.clientId }).toString(),
      });
      expect(revoked.status).toBe(200);
      const res = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it("does not let one client revoke another client's refresh token", async () => {
      const { client, refreshToken } = await authorized();
      const other = await registerClient(server.baseUrl, 'Other');
      await fetch(`${server.baseUrl}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: refreshToken, client_id: other.clientId }).toString(),
      });
      const res = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId });
      expect(res.status).toBe(200);
    });

    it('answers 400 for an expired refresh token', async () => {
      const { client, refreshToken } = await authorized();
      await server
        .db('oauth_payloads')
        .where({ model: 'RefreshToken' })
        .update({ expires_at: new Date(Date.now() - 1000) });
      const res = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it('refuses a resource indicator outside the service', async () => {
      const client = await registerClient(server.baseUrl);
      const { location } = await authorizeInBrowser(
        new HttpBrowser(server.baseUrl),
        authorizeUrl(server.baseUrl, client, pkce().challenge, { resource: 'https://other.example/mcp' }),
        person(),
      );
      expect(new URL(location!).searchParams.get('error')).toBe('invalid_target');
    });

    it('sends access_denied to the client when the person denies', async () => {
      const client = await registerClient(server.baseUrl);
      const { location } = await authorizeInBrowser(new HttpBrowser(server.baseUrl), authorizeUrl(server.baseUrl, client, pkce().challenge), person(), 'deny');
      const url = new URL(location!);
      expect(url.origin + url.pathname).toBe(client.redirectUri);
      expect(url.searchParams.get('error')).toBe('access_denied');
      expect(url.searchParams.get('code')).toBeNull();
    });
  });

  describe('access tokens', () => {
    let genuine: { accessToken: string; claims: Record<string, unknown> };
    let signingKey: CryptoKey;
    let kid: string;
    beforeAll(async () => {
      const { accessToken } = await authorized();
      genuine = { accessToken, claims: decodeJwt(accessToken) };
      const jwk = server.oauth.keys.signing[0] as JWK;
      kid = String(jwk.kid);
      signingKey = (await importJWK(jwk, 'ES256')) as CryptoKey;
    });

    const now = () => Math.floor(Date.now() / 1000);
    const forge = async (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}, key: CryptoKey = signingKey) =>
      new SignJWT({ ...genuine.claims, iat: now(), exp: now() + 600, ...claims }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid, ...header }).sign(key);

    it('accepts a token built like the genuine one (the control for the cases below)', async () => {
      expect((await api(genuine.accessToken)).status).toBe(200);
      expect((await api(await forge())).status).toBe(200);
    });

    it("reads the token's grant within the guard's count, not in a statement of its own", async () => {
      const sent: string[] = [];
      const listen = (q: { sql: string }) => {
        if (q.sql.includes('oauth_payloads')) sent.push(q.sql);
      };
      server.db.on('query', listen);
      try {
        expect((await api(genuine.accessToken)).status).toBe(200);
      } finally {
        server.db.off('query', listen);
      }
      expect(sent).toHaveLength(1);
      expect(sent[0]).toContain('INSERT INTO rate_limits');
    });

    it.each([
      ['another audience', { aud: 'https://other.example' }],
      ['an audience below the service', { aud: 'SERVICE/mcp' }],
      ['another issuer', { iss: 'https://issuer.example' }],
      ['an expired one', { iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 }],
      ['an unknown grant', { gid: 'no-such-grant' }],
      ['another client than its grant', { client_id: 'someone-else' }],
      ['another subject than its grant', { sub: '00000000-0000-4000-8000-000000000000' }],
      ['a sender-constrained (DPoP) one used as a bearer token', { cnf: { jkt: 'x'.repeat(43) } }],
    ])('answers 401 for %s', async (_case, claims) => {
      const fixed = Object.fromEntries(Object.entries(claims).map(([k, v]) => [k, typeof v === 'string' ? v.replace('SERVICE', server.baseUrl) : v]));
      const res = await api(await forge(fixed));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    });

    it('answers 401 for a token typed as a plain JWT (an ID token, say)', async () => {
      expect(await api(await forge({}, { typ: 'JWT' }))).toHaveProperty('status', 401);
    });

    it('answers 401 for a token signed by a key the service does not hold', async () => {
      const { privateKey } = await generateKeyPair('ES256');
      expect((await api(await forge({}, {}, privateKey as CryptoKey))).status).toBe(401);
    });

    it('answers 401 for an unsigned token', async () => {
      const encode = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const token = `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode({ ...genuine.claims, exp: now() + 600 })}.`;
      expect((await api(token)).status).toBe(401);
    });

    it('answers 401 for a tampered payload', async () => {
      const [h, , s] = genuine.accessToken.split('.');
      const payload = Buffer.from(JSON.stringify({ ...genuine.claims, sub: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
      expect((await api(`${h}.${payload}.${s}`)).status).toBe(401);
    });
  });

  describe('consent and return addresses', () => {
    const CLAUDE = 'https://claude.ai/api/mcp/auth_callback';
    const EVIL = 'https://evil.example/cb';

    it('asks again for a return address the person did not allow, and shows every address the app registered with its host', async () => {
      // A client registered (by the MCP SDK, as an MCP client does) with two return addresses, one of them an attacker's.
      const metadata = (await discoverAuthorizationServerMetadata(server.baseUrl))!;
      const client = await registerWithSdk(server.baseUrl, {
        metadata,
        clientMetadata: {
          client_name: 'Claude',
          redirect_uris: [CLAUDE, EVIL],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
        },
      });
      const browser = new HttpBrowser(server.baseUrl);
      const resource = server.baseUrl;
      // The person allows it once, returning to claude.ai.
      const first = await startAuthorization(server.baseUrl, { metadata, clientInformation: client, redirectUrl: CLAUDE, resource });
      let step = await browser.follow(first.authorizationUrl.href);
      let page = await step.res.text();
      step = await browser.follow('/signin', { form: { csrf: formValue(page, 'csrf'), next: formValue(page, 'next'), email: ada.email, password: PASSWORD } });
      expect(new URL(step.url).pathname).toBe('/oauth/consent');
      page = await step.res.text();
      // The consent page names every address the app registered, each with its host, and the one this request returns to.
      for (const text of [CLAUDE, 'claude.ai', EVIL, 'evil.example']) expect(page).toContain(text);
      const allowed = await browser.follow('/oauth/consent', {
        form: { csrf: formValue(page, 'csrf'), interaction: formValue(page, 'interaction'), decision: 'allow' },
      });
      expect(allowed.location!.startsWith(`${CLAUDE}?`)).toBe(true);
      const tokens = await exchangeAuthorization(server.baseUrl, {
        metadata,
        clientInformation: client,
        authorizationCode: codeFrom(allowed.location),
        codeVerifier: first.codeVerifier,
        redirectUri: CLAUDE,
        resource,
      });
      expect((await api(tokens.access_token)).status).toBe(200);

      // The attacker's authorization to evil.example with its own PKCE challenge: consent again, no code.
      const stolen = await startAuthorization(server.baseUrl, { metadata, clientInformation: client, redirectUrl: EVIL, resource });
      const evil = await browser.follow(stolen.authorizationUrl.href);
      expect(evil.location).toBeNull();
      expect(new URL(evil.url).pathname).toBe('/oauth/consent');
      const ask = await evil.res.text();
      expect(ask).toContain(`you go back to:<br><code>${EVIL}</code>`);
      expect(ask).toContain('evil.example');
      // Denied, the attacker gets an error and no code.
      const denied = await browser.follow('/oauth/consent', {
        form: { csrf: formValue(ask, 'csrf'), interaction: formValue(ask, 'interaction'), decision: 'deny' },
      });
      expect(new URL(denied.location!).searchParams.get('error')).toBe('access_denied');
      expect(new URL(denied.location!).searchParams.get('code')).toBeNull();

      // The address allowed before still goes straight back.
      const again = await startAuthorization(server.baseUrl, { metadata, clientInformation: client, redirectUrl: CLAUDE, resource });
      expect((await browser.follow(again.authorizationUrl.href)).location!.startsWith(`${CLAUDE}?code=`)).toBe(true);

      // Settings → Connections shows every registered address with its host, and which the person allowed.
      const connections = await (await browser.request('/settings/connections')).text();
      for (const text of [CLAUDE, 'claude.ai', EVIL, 'evil.example']) expect(connections).toContain(text);
      expect(connections).toMatch(/claude\.ai[^<]*<\/span>[^<]*<span[^>]*>allowed/);
      expect(connections).toMatch(/evil\.example<\/span> <span class="muted">\(not allowed/);
    });
  });

  describe('web forms', () => {
    it('refuses a consent form without the CSRF token, and one from another site', async () => {
      const client = await registerClient(server.baseUrl);
      const browser = new HttpBrowser(server.baseUrl);
      let step = await browser.follow(authorizeUrl(server.baseUrl, client, pkce().challenge));
      let page = await step.res.text();
      step = await browser.follow('/signin', { form: { csrf: formValue(page, 'csrf'), next: formValue(page, 'next'), email: ada.email, password: PASSWORD } });
      page = await step.res.text();
      const interaction = formValue(page, 'interaction');
      const csrf = formValue(page, 'csrf');
      expect((await browser.request('/oauth/consent', { form: { interaction, decision: 'allow' } })).status).toBe(403);
      expect((await browser.request('/oauth/consent', { form: { csrf: 'x'.repeat(43), interaction, decision: 'allow' } })).status).toBe(403);
      expect(
        (await browser.request('/oauth/consent', { form: { csrf, interaction, decision: 'allow' }, headers: { origin: 'https://evil.example' } })).status,
      ).toBe(403);
      // The genuine form still goes through.
      const ok = await browser.request('/oauth/consent', { form: { csrf, interaction, decision: 'allow' } });
      expect(ok.status).toBe(303);
    });

    it('does not let another browser answer the consent screen of an interaction', async () => {
      const client = await registerClient(server.baseUrl);
      const browser = new HttpBrowser(server.baseUrl);
      let step = await browser.follow(authorizeUrl(server.baseUrl, client, pkce().challenge));
      let page = await step.res.text();
      step = await browser.follow('/signin', { form: { csrf: formValue(page, 'csrf'), next: formValue(page, 'next'), email: ada.email, password: PASSWORD } });
      page = await step.res.text();
      const interaction = formValue(page, 'interaction');
      // A second browser, signed in as someone else, replays the interaction id.
      const bea = await server.account('Bea', PASSWORD);
      const other = new HttpBrowser(server.baseUrl);
      const signin = await (await other.request('/signin')).text();
      await other.request('/signin', { form: { csrf: formValue(signin, 'csrf'), next: '/', email: bea.email, password: PASSWORD } });
      const res = await other.request(`/oauth/consent?interaction=${interaction}`);
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/expired or was already used/);
    });

    it('refuses a sign-in with a wrong password, and one for an account without a password', async () => {
      const browser = new HttpBrowser(server.baseUrl);
      const page = await (await browser.request('/signin')).text();
      const wrong = await browser.request('/signin', { form: { csrf: formValue(page, 'csrf'), next: '/', email: ada.email, password: 'not the password' } });
      expect(wrong.status).toBe(401);
      const nopass = await server.account('Cid');
      const none = await browser.request('/signin', { form: { csrf: formValue(page, 'csrf'), next: '/', email: nopass.email, password: '' } });
      expect(none.status).toBe(401);
    });
  });
});
