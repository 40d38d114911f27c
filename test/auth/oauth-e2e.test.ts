/**
 * End to end, as an MCP client meets listkeeper for the first time: the MCP SDK's own OAuth
 * support (401 → protected-resource discovery → authorization-server metadata → dynamic
 * registration → authorization with PKCE) while headless Chromium signs in and approves
 * on the real pages; then the code exchange, a tool call, a refresh, and the old refresh
 * token refused.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { useTestServer, type TestAccount } from '../support/server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { tokenRequest } from '../support/oauth.js';
import { callbackServer, MemoryOAuthProvider } from '../support/mcp-oauth.js';

const PASSWORD = 'a long enough passphrase';

describe('MCP client OAuth, end to end with a browser', () => {
  let ada: TestAccount;
  let browser: TestBrowser;
  let callback: Awaited<ReturnType<typeof callbackServer>>;
  const clients: Client[] = [];
  const { server } = useTestServer({
    accounts: [],
    beforeClose: async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await Promise.all([browser?.close(), callback?.close()]);
    },
  });

  beforeAll(async () => {
    [browser, callback, ada] = await Promise.all([launchBrowser(), callbackServer(), server.account('Ada', PASSWORD)]);
  }, 120_000);

  const connect = async (provider: OAuthClientProvider) => {
    const client = new Client({ name: 'listkeeper-e2e', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { authProvider: provider }));
    return client;
  };

  it('connects through discovery, registration, sign-in and consent, calls a tool, refreshes, and refuses the old refresh token', async () => {
    const provider = new MemoryOAuthProvider(callback.url);
    const mcpUrl = `${server.baseUrl}/mcp`;

    // 1. No token: 401 → discovery → registration → authorization URL handed to the "user agent".
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    const first = new Client({ name: 'listkeeper-e2e', version: '1.0.0' });
    await expect(first.connect(transport)).rejects.toThrow(UnauthorizedError);
    expect(provider.information?.client_id).toEqual(expect.any(String));
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${server.baseUrl}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(server.baseUrl);

    // 2. The browser: sign-in page, then the consent screen naming the app and where it returns.
    const page = await browser.context.newPage();
    await page.goto(authorizationUrl.href);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await page.fill('#email', ada.email);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(/\/oauth\/consent/), page.click('button[type=submit]')]);
    const consent = await page.textContent('main');
    expect(consent).toContain('E2E Agent');
    expect(consent).toContain(callback.url);
    expect(consent).toContain(ada.email);
    await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[value=allow]')]);
    const code = await callback.next();
    expect(new URL(page.url()).searchParams.get('iss')).toBe(server.baseUrl);

    // 3. The code exchange, then a tool call with the access token.
    await transport.finishAuth(code);
    const tokens = provider.saved!;
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const client = await connect(provider);
    const result = await client.callTool({ name: 'list_lists', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { lists: { name: string }[] }).lists.map((l) => l.name)).toContain('Tasks');

    // 4. Refresh through the SDK: a new access token and a rotated refresh token, both working.
    const oldRefresh = tokens.refresh_token!;
    expect(await auth(provider, { serverUrl: mcpUrl })).toBe('AUTHORIZED');
    expect(provider.saved!.refresh_token).not.toBe(oldRefresh);
    expect(provider.saved!.access_token).not.toBe(tokens.access_token);
    const again = await connect(provider);
    expect((await again.callTool({ name: 'get_context', arguments: {} })).isError).toBeFalsy();

    // 5. The old refresh token is refused with 400; replaying it revokes the grant, so the new access token stops too.
    const replay = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: oldRefresh, client_id: provider.information!.client_id });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    const after = await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${provider.saved!.access_token}` } });
    expect(after.status).toBe(401);
  }, 120_000);
});
