/**
 * Grants made on the consent page, in Chromium, by the MCP SDK's own OAuth client: a person
 * narrows an app to read only, the app's write is answered 403 insufficient_scope, the SDK
 * steps up (a new authorization asking lists:write), the consent page shows only what is added,
 * and the write goes through; a second app is narrowed to one list and sees only that list.
 * @see docs/auth.md "Grants"
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Page } from 'playwright-core';
import { useTestServer, type TestAccount } from '../support/server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { callbackServer, MemoryOAuthProvider } from '../support/mcp-oauth.js';

const PASSWORD = 'a long enough passphrase';

describe('grants made on the consent page', () => {
  let ada: TestAccount;
  let browser: TestBrowser;
  let page: Page;
  let callback: Awaited<ReturnType<typeof callbackServer>>;
  const clients: Client[] = [];
  const { server } = useTestServer({
    accounts: [],
    beforeClose: async () => {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await Promise.all([browser?.close(), callback?.close()]);
    },
  });
  const mcpUrl = () => `${server.baseUrl}/mcp`;

  beforeAll(async () => {
    [browser, callback, ada] = await Promise.all([launchBrowser(), callbackServer(), server.account('Ada', PASSWORD)]);
    page = await browser.context.newPage();
    await page.goto(`${server.baseUrl}/signin`);
    await page.fill('#email', ada.email);
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(/\/lists/), page.click('button[type=submit]')]);
  }, 120_000);

  /** Runs an authorization the SDK asked for: the consent page, where `choose` narrows it, then Allow; answers the page's text. */
  async function consent(provider: MemoryOAuthProvider, transport: StreamableHTTPClientTransport, choose: (page: Page) => Promise<void>): Promise<string> {
    await page.goto(provider.authorizationUrl!.href);
    await page.waitForURL(/\/oauth\/consent/);
    const text = (await page.textContent('main')) ?? '';
    await choose(page);
    await Promise.all([page.waitForURL(/\/callback\?/), page.click('button[value=allow]')]);
    await transport.finishAuth(await callback.next());
    return text;
  }

  /** A first connection of a new app through the SDK: 401, discovery, registration, then the consent page. */
  async function connectApp(name: string, choose: (page: Page) => Promise<void>): Promise<{ provider: MemoryOAuthProvider; client: Client; text: string }> {
    // No refresh token kept: a client that steps up authorizes again (see MemoryOAuthProvider).
    const provider = new MemoryOAuthProvider(callback.url, name, { keepRefreshToken: false });
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider });
    await expect(new Client({ name, version: '1.0.0' }).connect(transport)).rejects.toThrow(UnauthorizedError);
    const text = await consent(provider, transport, choose);
    const client = new Client({ name, version: '1.0.0' });
    clients.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider }));
    return { provider, client, text };
  }

  it('makes a read-only connection, then steps it up to write with the SDK', async () => {
    const { provider, client, text } = await connectApp('Reader', (p) => p.check('input[name=access][value=read]'));
    expect(text).toContain('Read, change and delete everything');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('list_items');
    expect(tools.map((t) => t.name)).not.toContain('create_items');

    // The write: 403 insufficient_scope → the SDK authorizes again with the scope named → the browser.
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider });
    const writer = new Client({ name: 'Reader', version: '1.0.0' });
    clients.push(writer);
    await writer.connect(transport);
    await expect(writer.callTool({ name: 'create_items', arguments: { listId: 'tasks', items: [{ title: 'Stepped up' }] } })).rejects.toThrow(
      UnauthorizedError,
    );
    expect(provider.authorizationUrl!.searchParams.get('scope')).toBe('lists:write');
    const stepUp = await consent(provider, transport, async () => undefined);
    expect(stepUp).toContain('It may already: Read only');
    expect(stepUp).toContain('It asks to also: add and change items and lists.');
    expect(stepUp).not.toContain('delete everything');

    const after = new Client({ name: 'Reader', version: '1.0.0' });
    clients.push(after);
    await after.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: provider }));
    const made = await after.callTool({ name: 'create_items', arguments: { listId: 'tasks', items: [{ title: 'Stepped up' }] } });
    expect(made.isError).toBeFalsy();
    // Still no deletes: the step-up added writing only.
    const res = await fetch(`${server.baseUrl}/api/v1/items`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${provider.saved!.access_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ itemIds: [(made.structuredContent as { items: { id: string }[] }).items[0]!.id] }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('scope="lists:delete"');
  }, 120_000);

  it('makes a one-list connection that sees only that list', async () => {
    await fetch(`${server.baseUrl}/api/v1/lists`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ada.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Groceries' }),
    });
    const { client } = await connectApp('Shopper', async (p) => {
      await p.check('input[name=reach][value=some]');
      for (const box of await p.locator('input[type=checkbox][name^=list-]').all()) {
        const label = (await box.evaluate((el) => el.parentElement?.textContent ?? '')).trim();
        if (label === 'Groceries') await box.check();
        else await box.uncheck();
      }
      await p.uncheck('input[name=later]');
    });
    const listed = await client.callTool({ name: 'list_lists', arguments: {} });
    expect((listed.structuredContent as { lists: { name: string }[] }).lists.map((l) => l.name)).toEqual(['Groceries']);
    const other = await client.callTool({ name: 'list_items', arguments: { listId: 'tasks' } });
    expect(other.isError).toBe(true);

    // Settings → Connections shows each app's grant in words.
    await page.goto(`${server.baseUrl}/settings/connections`);
    const settings = (await page.textContent('main')) ?? '';
    expect(settings).toContain('Only these lists: Groceries.');
    expect(settings).toContain('Read and change, but delete nothing.');

    // Narrowed there to read only: the app's next request holds to it, with the same token.
    const shopper = page.locator('li', { hasText: 'Shopper' });
    await shopper.locator('summary').click();
    await shopper.locator('input[name=access][value=read]').check();
    await Promise.all([page.waitForURL(/done=app-changed/), shopper.locator('button', { hasText: 'Save' }).click()]);
    expect(await page.textContent('main')).toContain('Read only: it can read, and change nothing. Only these lists: Groceries.');
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).not.toContain('create_items');
    expect(tools.tools.map((t) => t.name)).toContain('list_items');
  }, 120_000);
});
