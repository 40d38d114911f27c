/**
 * Client ID Metadata Documents (src/auth/oauth/client-metadata.ts, oidc-provider's
 * clientIdMetadataDocument feature): an app whose client_id is an https URL signs in with the
 * metadata served there, from a test HTTPS origin; the document must name itself and its
 * redirect URIs; a failed document is not fetched again for a while, a good one is kept; the
 * consent page shows the document's name beside the host that serves it. Dynamic
 * registration stays for older clients; authorization responses carry `iss` (RFC 9207).
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { startHttpsOrigin, type HttpsOrigin } from '../support/https-origin.js';
import { authorizeUrl, formValue, pkce, register, signInOverHttp, tokenRequest, type HttpBrowser } from '../support/oauth.js';
import { modernMessage, modernPost } from '../support/http.js';
import { listConnectedApps } from '../../src/auth/oauth/grants.js';

const PASSWORD = 'a long enough passphrase';
const REDIRECT = 'http://127.0.0.1:53682/callback';

describe('Client ID Metadata Documents', () => {
  let origin: HttpsOrigin;
  let ada: TestAccount;
  const { server } = useTestServer({ accounts: [], env: { OUTBOUND_ALLOW_PRIVATE: 'true' }, beforeClose: async () => origin?.close() });
  beforeAll(async () => {
    [origin, ada] = await Promise.all([startHttpsOrigin(), server.account('Ada', PASSWORD)]);
  });

  /** Serves a metadata document at `path` whose client_id is its URL (unless `fields` says otherwise). */
  const publish = (path: string, fields: Record<string, unknown> = {}) => {
    const clientId = `${origin.origin}${path}`;
    origin.serve(path, {
      headers: { 'cache-control': 'max-age=600' },
      body: JSON.stringify({ client_id: clientId, client_name: 'Test Agent', redirect_uris: [REDIRECT], ...fields }),
    });
    return clientId;
  };
  const begin = async (
    clientId: string,
    redirectUri = REDIRECT,
  ): Promise<{ browser: HttpBrowser; status: number; page: string; url: string; verifier: string }> => {
    const browser = await signInOverHttp(server.baseUrl, ada.email, PASSWORD);
    const { verifier, challenge } = pkce();
    const step = await browser.follow(authorizeUrl(server.baseUrl, { clientId, redirectUri }, challenge));
    return { browser, status: step.res.status, page: await step.res.text(), url: step.url, verifier };
  };

  it('says so in the authorization server metadata, beside dynamic registration and the iss parameter', async () => {
    const metadata = (await (await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      client_id_metadata_document_supported: true,
      registration_endpoint: `${server.baseUrl}/oauth/register`,
      authorization_response_iss_parameter_supported: true,
    });
    expect((await register(server.baseUrl, { client_name: 'Older agent', redirect_uris: [REDIRECT] })).status).toBe(201);
  });

  it('completes a sign-in: the consent page names the app and its host, the code carries iss, and the token works', async () => {
    const clientId = publish('/agent/client.json');
    const started = await begin(clientId);
    expect(new URL(started.url).pathname).toBe('/oauth/consent');
    const text = started.page.replace(/<[^>]+>/g, '');
    expect(text).toContain(`Test Agent from ${new URL(origin.origin).host}`);
    expect(text).toContain(clientId);
    const decided = await started.browser.follow('/oauth/consent', {
      form: { csrf: formValue(started.page, 'csrf'), interaction: formValue(started.page, 'interaction'), decision: 'allow' },
    });
    const redirect = new URL(decided.location!);
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT);
    expect(redirect.searchParams.get('iss')).toBe(server.baseUrl);
    const token = await tokenRequest(server.baseUrl, {
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code')!,
      code_verifier: started.verifier,
      client_id: clientId,
      redirect_uri: REDIRECT,
    });
    expect(token.status).toBe(200);
    const call = await modernPost(server.baseUrl, modernMessage(1, 'tools/call', { name: 'list_lists', arguments: {} }), {
      Authorization: `Bearer ${String(token.body.access_token)}`,
    });
    expect(call.json<{ result: { isError?: boolean } }>().result.isError).toBeUndefined();
    // No registration is stored for it: Settings → Connections knows it by the host of its document.
    expect((await listConnectedApps(server.db, ada.userId)).find((a) => a.clientId === clientId)).toMatchObject({ clientName: new URL(origin.origin).host });
    // Kept, not fetched again: the second sign-in (consent already given) reads the cached document.
    const again = await begin(clientId);
    expect(again.status).toBe(303);
    expect(origin.hits('/agent/client.json')).toBe(1);
  });

  it('shows the host a look-alike name comes from', async () => {
    const clientId = publish('/lookalike.json', { client_name: 'Claude' });
    const { page } = await begin(clientId);
    expect(page.replace(/<[^>]+>/g, '')).toContain(`Claude from ${new URL(origin.origin).host}`);
  });

  it('refuses a redirect URI the document does not list, and sends nothing there', async () => {
    const clientId = publish('/strict.json');
    const { status, page } = await begin(clientId, 'http://127.0.0.1:9/elsewhere');
    expect(status).toBe(400);
    expect(page).toContain('redirect_uri');
  });

  it.each([
    ['whose client_id is another URL', '/mismatch.json', { client_id: 'https://elsewhere.example/client.json' }, 'is not its own URL'],
    ['that names no app', '/nameless.json', { client_name: undefined }, 'names no client_name'],
    ['larger than 5 KiB', '/large.json', { padding: 'x'.repeat(6000) }, 'larger than 5120 bytes'],
  ])('refuses a document %s, and does not fetch it again at once', async (_case, path, fields, reason) => {
    const clientId = publish(path, fields);
    const first = await begin(clientId);
    expect(first.status).toBe(400);
    // Fixed at once: still refused from the negative cache, without a second fetch.
    publish(path);
    const second = await begin(clientId);
    expect(second.status).toBe(400);
    expect(second.page).toContain(reason);
    expect(origin.hits(path)).toBe(1);
  });

  it('refuses a document that does not answer 200', async () => {
    const clientId = `${origin.origin}/missing.json`;
    const { status, page } = await begin(clientId);
    expect(status).toBe(400);
    expect(page).toContain('it answered HTTP 404');
  });
});

describe('Client ID Metadata Documents on private addresses', () => {
  let origin: HttpsOrigin;
  let ada: TestAccount;
  const { server } = useTestServer({ accounts: [], env: { OUTBOUND_ALLOW_PRIVATE: 'false' }, beforeClose: async () => origin?.close() });
  beforeAll(async () => {
    [origin, ada] = await Promise.all([startHttpsOrigin(), server.account('Ada', PASSWORD)]);
  });

  it('never fetches a document from a private address', async () => {
    const clientId = `${origin.origin}/client.json`;
    origin.serve('/client.json', { body: JSON.stringify({ client_id: clientId, client_name: 'Inside', redirect_uris: [REDIRECT] }) });
    const browser = await signInOverHttp(server.baseUrl, ada.email, PASSWORD);
    const step = await browser.follow(authorizeUrl(server.baseUrl, { clientId, redirectUri: REDIRECT }, pkce().challenge));
    expect(step.res.status).toBe(400);
    expect(await step.res.text()).toContain('private, loopback or reserved address');
    expect(origin.hits('/client.json')).toBe(0);
  });
});
