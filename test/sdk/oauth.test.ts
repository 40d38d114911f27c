/**
 * The SDK's OAuth helper (`@listkeeper/sdk/oauth`) against a running service: the PKCE loopback
 * sign-in a command-line or desktop app makes, a client whose token function refreshes once
 * however many requests ask at once, rotation (the refresh token used before is refused and
 * ends the sign-in), and revocation.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { createClient } from '../../sdk/src/index.js';
import { OAuthError, refreshSession, revokeSession, sessionToken, signInWithBrowser, type OAuthSession } from '../../sdk/src/oauth.js';
import { authorizeInBrowser, HttpBrowser } from '../support/oauth.js';
import { useTestServer, type TestAccount } from '../support/server.js';

describe('@listkeeper/sdk/oauth', () => {
  const { server } = useTestServer({ accounts: [] });
  const password = 'correct horse battery';
  let ada: TestAccount;
  beforeAll(async () => {
    ada = await server.account('Ada', password);
  });

  /** Signs in as the person would: the app gets the address, the person approves in the browser. */
  async function signIn(): Promise<{ session: OAuthSession; address: string }> {
    let address = '';
    let landing: Promise<string> | undefined;
    const session = await signInWithBrowser({
      baseUrl: server.baseUrl,
      clientName: 'SDK test app',
      softwareId: 'sdk-test',
      onAuthorizationUrl: (url) => {
        address = url;
        // The browser's part runs beside the helper, which waits for the redirect.
        landing = authorizeInBrowser(new HttpBrowser(server.baseUrl), url, { email: ada.email, password }).then(async ({ location }) =>
          (await fetch(location!)).text(),
        );
      },
    });
    expect(await landing).toContain('Signed in.');
    return { session, address };
  }

  it('signs in with PKCE S256 over a loopback redirect and calls the API with the token', async () => {
    const { session, address } = await signIn();
    const asked = new URL(address).searchParams;
    expect(asked.get('code_challenge_method')).toBe('S256');
    expect(asked.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(session).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), clientId: asked.get('client_id') });
    expect(Date.parse(session.expiresAt!)).toBeGreaterThan(Date.now());

    const lk = createClient({ baseUrl: server.baseUrl, token: session.accessToken, throwOnError: true });
    expect((await lk.context.get()).user.email).toBe(ada.email);
  }, 60_000);

  it('refreshes once for many requests, hands the renewed session over, and the old refresh token ends the sign-in', async () => {
    const { session } = await signIn();
    const saved: OAuthSession[] = [];
    // As if the access token were about to expire: the first request renews it.
    const token = sessionToken({ ...session, expiresAt: new Date(Date.now() + 1000).toISOString() }, { onRefresh: (s) => void saved.push(s) });
    const lk = createClient({ baseUrl: server.baseUrl, token, throwOnError: true });
    const lists = await Promise.all(Array.from({ length: 5 }, () => lk.lists.list()));
    expect(lists.every((l) => l.lists.length >= 3)).toBe(true);
    expect(saved).toHaveLength(1);
    expect(saved[0]!.accessToken).not.toBe(session.accessToken);
    expect(saved[0]!.refreshToken).not.toBe(session.refreshToken);
    expect(await token()).toBe(saved[0]!.accessToken);

    // Refresh tokens rotate: the one used before is refused, and the server ends the whole sign-in.
    const reused = await refreshSession(session).catch((err: unknown) => err);
    expect(reused).toBeInstanceOf(OAuthError);
    expect(reused).toMatchObject({ failure: 'ended' });
    await expect(refreshSession(saved[0]!)).rejects.toMatchObject({ failure: 'ended' });
  }, 60_000);

  it('revokes a sign-in: its refresh token stops working', async () => {
    const { session } = await signIn();
    expect(await revokeSession(session)).toBe(true);
    await expect(refreshSession(session)).rejects.toMatchObject({ failure: 'ended' });
    expect(await revokeSession({ ...session, refreshToken: undefined })).toBe(false);
  }, 60_000);

  it('says why when the address is not a listkeeper service', async () => {
    const failure = await signInWithBrowser({ baseUrl: 'http://127.0.0.1:9', clientName: 'x', onAuthorizationUrl: () => undefined }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ failure: 'unreachable', message: expect.stringContaining('Could not reach listkeeper at http://127.0.0.1:9') });
    await expect(refreshSession({ ...({} as OAuthSession), resource: server.baseUrl })).rejects.toMatchObject({ failure: 'expired' });
  });
});
