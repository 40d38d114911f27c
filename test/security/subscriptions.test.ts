/**
 * Event subscriptions end with the credential that made them: an API key replaced or revoked,
 * an OAuth app disconnected. The Connections page lists them, each removable.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { HttpBrowser, formValue } from '../support/oauth.js';
import { createApiKey, revokeApiKey } from '../../src/domain/accounts/api-keys.js';
import { REACH_LOCAL_SERVERS } from '../support/net.js';

const PASSWORD = 'correct horse battery staple';

describe('event subscriptions and their credentials', () => {
  const { server } = useTestServer({ env: REACH_LOCAL_SERVERS, accounts: [] });
  let ada: TestAccount;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
  });

  const subscriptions = async () =>
    (await server.db('event_subscriptions').where({ user_id: ada.userId }).select('id', 'via', 'credential')) as {
      id: string;
      via: string;
      credential: string | null;
    }[];
  const subscribeRest = async (key: string) =>
    (await fetch(`${server.baseUrl}/api/v1/event-subscriptions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks' }),
    }).then((r) => r.json())) as { id: string };
  const subscribeMcp = async (key: string) => {
    const res = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'events/subscribe',
        params: {
          name: 'task.awaitingAgent',
          delivery: { mode: 'webhook', url: 'http://127.0.0.1:9/mcp-hooks', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
        },
      }),
    });
    return (await res.json()) as { result?: unknown; error?: unknown };
  };

  it('ends REST and MCP subscriptions made with a key when the key is replaced', async () => {
    const key = await createApiKey(server.db, ada.userId);
    await subscribeRest(key);
    const mcp = await subscribeMcp(key);
    expect(mcp.error).toBeUndefined();
    expect((await subscriptions()).map((s) => s.via).sort()).toEqual(['mcp', 'rest']);
    const replacement = await createApiKey(server.db, ada.userId);
    expect(await subscriptions()).toEqual([]);
    // The replacement is a new credential: its own subscriptions live on until it goes.
    await subscribeRest(replacement);
    expect(await subscriptions()).toHaveLength(1);
    await revokeApiKey(server.db, ada.userId);
    expect(await subscriptions()).toEqual([]);
  });

  it('lists subscriptions on the Connections page and removes one from there', async () => {
    const key = await createApiKey(server.db, ada.userId);
    const made = await subscribeRest(key);
    const browser = new HttpBrowser(server.baseUrl);
    const signin = await (await browser.request('/signin')).text();
    await browser.request('/signin', { form: { csrf: formValue(signin, 'csrf'), next: '/settings/connections', email: ada.email, password: PASSWORD } });
    const page = await (await browser.request('/settings/connections')).text();
    expect(page).toContain('Event subscriptions');
    expect(page).toContain('http://127.0.0.1:9/hooks');
    expect(page).toContain('made with your API key');
    const removed = await browser.request('/settings/connections/subscriptions/remove', { form: { csrf: formValue(page, 'csrf'), subscription: made.id } });
    expect(removed.status).toBe(303);
    expect(await subscriptions()).toEqual([]);
  });
});
