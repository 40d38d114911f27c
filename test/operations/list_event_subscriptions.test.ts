import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { mintSecret } from '../../src/domain/changes/subscriptions.js';
import { REACH_LOCAL_SERVERS } from '../support/net.js';

describe('list_event_subscriptions', () => {
  const { server } = useTestServer({ env: REACH_LOCAL_SERVERS, accounts: [] });

  it("lists the caller's subscriptions oldest first, secrets hidden, and nobody else's", async () => {
    const [ada, bea] = [await server.account('Ada'), await server.account('Bea')];
    expect((await ada.sdk.GET('/event-subscriptions')).data).toEqual({ count: 0, subscriptions: [] });
    const a = await ada.sdk.POST('/event-subscriptions', { body: { url: 'http://127.0.0.1:9/a' } });
    const b = await ada.sdk.POST('/event-subscriptions', { body: { url: 'http://127.0.0.1:9/b', secret: mintSecret() } });
    await bea.sdk.POST('/event-subscriptions', { body: { url: 'http://127.0.0.1:9/bea' } });
    const listed = await ada.sdk.GET('/event-subscriptions');
    expect(listed.response.status).toBe(200);
    expect(listed.data!.count).toBe(2);
    expect(listed.data!.subscriptions.map((s) => s.id)).toEqual([a.data!.id, b.data!.id]);
    for (const s of listed.data!.subscriptions) expect(s).not.toHaveProperty('secret');
    expect(JSON.stringify(listed.data)).not.toContain('whsec_');
  });

  it('is a REST route only, not an MCP tool', async () => {
    const ada = await server.account('Ada');
    const mcp = await server.mcp(ada);
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).not.toContain('list_event_subscriptions');
  });
});
