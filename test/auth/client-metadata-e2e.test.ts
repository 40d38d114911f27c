/**
 * End to end, a Client ID Metadata Document sign-in as an MCP client makes it: the MCP SDK's
 * own OAuth support, given the URL of its metadata document (served from a test HTTPS
 * origin), sees `client_id_metadata_document_supported` and uses that URL as its client_id
 * with no registration; headless Chromium signs in and approves on the real pages, where the
 * app's name shows beside its host; then the code exchange and a tool call.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { useTestServer, type TestAccount } from '../support/server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { startHttpsOrigin, type HttpsOrigin } from '../support/https-origin.js';

const PASSWORD = 'a long enough passphrase';

/** An MCP client that names itself by its metadata document, its OAuth state in memory. */
class DocumentClient implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  registered = false;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Document Agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.information = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('MCP client sign-in with a Client ID Metadata Document, in a browser', () => {
  let ada: TestAccount;
  let browser: TestBrowser;
  let origin: HttpsOrigin;
  let callback: Server;
  let code: Promise<string>;
  const clients: Client[] = [];
  const { server } = useTestServer({
    accounts: [],
    env: { OUTBOUND_ALLOW_PRIVATE: 'true' },
    beforeClose: async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      callback?.closeAllConnections();
      await Promise.all([browser?.close(), origin?.close(), new Promise((resolve) => callback?.close(resolve))]);
    },
  });

  beforeAll(async () => {
    let deliver!: (value: string) => void;
    code = new Promise<string>((resolve) => (deliver = resolve));
    callback = createServer((req, res) => {
      const value = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('code');
      res.end('<!doctype html><title>Connected</title>');
      if (value) deliver(value);
    });
    callback.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => callback.once('listening', resolve));
    [browser, origin, ada] = await Promise.all([launchBrowser(), startHttpsOrigin(), server.account('Ada', PASSWORD)]);
  }, 120_000);

  it('signs in with the document URL as client_id: no registration, the app named with its host, a working token', async () => {
    const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    const documentUrl = `${origin.origin}/mcp-client.json`;
    origin.serve('/mcp-client.json', {
      body: JSON.stringify({ client_id: documentUrl, client_name: 'Document Agent', redirect_uris: [redirectUrl], token_endpoint_auth_method: 'none' }),
    });
    const provider = new DocumentClient(redirectUrl, documentUrl);
    const mcpUrl = new URL(`${server.baseUrl}/mcp`);

    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(new Client({ name: 'cimd-e2e', version: '1.0.0' }).connect(transport)).rejects.toThrow(UnauthorizedError);
    expect(provider.information?.client_id).toBe(documentUrl);
    expect(provider.authorizationUrl!.searchParams.get('client_id')).toBe(documentUrl);
    const registrations = await server.db('oauth_payloads').where({ model: 'Client' }).count({ n: '*' });
    expect(Number(registrations[0]!.n)).toBe(0);

    const page = await browser.context.newPage();
    await page.goto(provider.authorizationUrl!.href);
    await page.fill('#email', ada.email);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(/\/oauth\/consent/), page.click('button[type=submit]')]);
    expect(await page.textContent('main')).toContain(`Document Agent from ${new URL(origin.origin).host}`);
    expect(await page.textContent('.client-host')).toBe(new URL(origin.origin).host);
    await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[value=allow]')]);
    expect(new URL(page.url()).searchParams.get('iss')).toBe(server.baseUrl);

    await transport.finishAuth(await code);
    const client = new Client({ name: 'cimd-e2e', version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    const result = await client.callTool({ name: 'list_lists', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(origin.hits('/mcp-client.json')).toBe(1);
  }, 120_000);
});
