/** MCP Events: events/list, events/subscribe, events/unsubscribe, delivered by the webhook machinery. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import * as z from 'zod';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { useTestServer } from '../support/server.js';
import { startReceiver, useDeliveryServer, type Receiver } from '../support/events.js';
import { mintSecret, upsertClientSubscription } from '../../src/domain/changes/subscriptions.js';
import { create_items } from '../../src/operations/create_items.js';
import { sendDueReminders } from '../../src/domain/items/reminders.js';

const Result = z.looseObject({});

async function call(client: Client, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  return (await client.request({ method, params } as never, Result)) as Record<string, unknown>;
}

async function callError(client: Client, method: string, params: Record<string, unknown>): Promise<McpError> {
  try {
    await call(client, method, params);
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error(`${method} did not fail`);
}

describe('MCP events', () => {
  const { server, ada } = useDeliveryServer({
    env: { MCP_EVENTS_TTL_SECONDS: '3600' },
    beforeClose: async () => {
      await receiver.close();
    },
  });
  let receiver: Receiver;
  let client: Client;
  beforeAll(async () => {
    receiver = await startReceiver();
    client = await server.mcp(ada);
  });

  it('advertises the events capability under experimental', () => {
    expect(client.getServerCapabilities()?.experimental).toEqual({ events: { listChanged: false, delivery: ['webhook'] } });
  });

  it('lists the catalog: task.awaitingAgent, task.reminder and the change events by webhook, with their payload schemas', async () => {
    const { events } = (await call(client, 'events/list')) as { events: { name: string; delivery: string[]; payloadSchema: { required: string[] } }[] };
    expect(events.map((e) => e.name)).toEqual([
      'task.awaitingAgent',
      'task.reminder',
      'item.created',
      'item.updated',
      'item.completed',
      'item.deleted',
      'item.restored',
      'item.moved',
      'list.created',
      'list.updated',
      'list.deleted',
      'list.restored',
      'chat.replied',
    ]);
    expect(events.every((e) => e.delivery.join() === 'webhook' && e.payloadSchema.required.includes('occurredAt'))).toBe(true);
    expect(events[0]).toMatchObject({ name: 'task.awaitingAgent', delivery: ['webhook'] });
    expect(events[0]!.payloadSchema.required).toEqual(['taskId', 'title', 'reason', 'agentName', 'occurredAt']);
    expect(events[1]!.payloadSchema.required).toEqual(['itemId', 'listId', 'title', 'reminderAt', 'dueAt', 'occurredAt']);
  });

  it("subscribes idempotently per client, grants refreshBefore within the server's limit, and delivers signed with the client's secret", async () => {
    const secret = mintSecret();
    const params = { name: 'task.awaitingAgent', delivery: { mode: 'webhook', url: receiver.url, secret }, ttlMs: 600_000 };
    const first = await call(client, 'events/subscribe', params);
    receiver.secrets.set(first.id as string, secret);
    expect(first).toMatchObject({ id: expect.any(String), cursor: null, truncated: false, deliveryStatus: { active: false, verified: false } });
    const granted = Date.parse(first.refreshBefore as string) - Date.now();
    expect(granted).toBeGreaterThan(590_000);
    expect(granted).toBeLessThanOrEqual(600_000);

    await receiver.verified(first.id as string);
    const again = await call(client, 'events/subscribe', { ...params, ttlMs: 10 * 3600_000 });
    expect(again.id).toBe(first.id);
    // Asked for more than the server grants: clamped to MCP_EVENTS_TTL_SECONDS.
    expect(Date.parse(again.refreshBefore as string) - Date.now()).toBeLessThanOrEqual(3600_000);
    expect(Date.parse(again.refreshBefore as string)).toBeGreaterThan(Date.parse(first.refreshBefore as string));
    expect(again.deliveryStatus).toMatchObject({ active: true, verified: true });
    const rows = await server.db('event_subscriptions').where({ user_id: ada.userId });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ via: 'mcp', secret, status: 'active' });

    const id = (await create_items(server.context(ada), { items: [{ title: 'From MCP' }] })).items[0]!.id;
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: id, assignedAgent: 'MCP agent' }] } });
    await receiver.waitFor(() => receiver.events().some((e) => (e.payload!.data as { taskId: string }).taskId === id));
    const event = receiver.events().find((e) => (e.payload!.data as { taskId: string }).taskId === id)!;
    expect(event.headers['x-mcp-subscription-id']).toBe(first.id);
    expect(event.payload).toMatchObject({ name: 'task.awaitingAgent', cursor: null, data: { reason: 'assigned', agentName: 'MCP agent' } });

    // The REST list shows it too, with its expiry.
    const listed = await ada.sdk.GET('/event-subscriptions');
    expect(listed.data!.subscriptions[0]).toMatchObject({ id: first.id, via: 'mcp', refreshBefore: again.refreshBefore });
  });

  it('delivers a task reminder to an MCP client subscribed to task.reminder', async () => {
    const cy = await server.account('Cy');
    const cyClient = await server.mcp(cy);
    const secret = mintSecret();
    const sub = await call(cyClient, 'events/subscribe', { name: 'task.reminder', delivery: { mode: 'webhook', url: receiver.url, secret } });
    receiver.secrets.set(sub.id as string, secret);
    await receiver.verified(sub.id as string);
    const made = await cyClient.callTool({
      name: 'create_items',
      arguments: { listId: 'tasks', items: [{ title: 'Take the cake out', reminderAt: new Date(Date.now() - 5000).toISOString() }] },
    });
    const id = (made.structuredContent as { items: { id: string }[] }).items[0]!.id;
    expect(await sendDueReminders(server.db, new Date())).toBe(1);
    await receiver.waitFor(() => receiver.events().some((e) => e.payload?.type === 'task.reminder' && (e.payload.data as { itemId: string }).itemId === id));
    const event = receiver.events().find((e) => e.payload?.type === 'task.reminder')!;
    expect(event.headers['x-mcp-subscription-id']).toBe(sub.id);
    expect(event.payload).toMatchObject({ type: 'task.reminder', data: { itemId: id, title: 'Take the cake out' } });
    await cyClient.close();
  });

  it('moves the subscription to a new URL on subscribe, verifying it afresh', async () => {
    const other = await startReceiver('/other');
    try {
      const secret = mintSecret();
      const bea = await server.account('Bea');
      const beaClient = await server.mcp(bea);
      const a = await call(beaClient, 'events/subscribe', { name: 'task.awaitingAgent', delivery: { url: receiver.url, secret } });
      receiver.secrets.set(a.id as string, secret);
      other.secrets.set(a.id as string, secret);
      const b = await call(beaClient, 'events/subscribe', { name: 'task.awaitingAgent', delivery: { url: other.url, secret } });
      expect(b.id).toBe(a.id);
      expect(b.deliveryStatus).toMatchObject({ active: false, verified: false });
      await other.waitFor((r) => r.some((q) => q.payload?.type === 'verification'));
    } finally {
      await other.close();
    }
  });

  it('subscribes to an item event with includeItem, which the subscription keeps', async () => {
    const subscribed = await call(client, 'events/subscribe', {
      name: 'item.updated',
      arguments: { includeItem: true },
      delivery: { url: receiver.url, secret: mintSecret() },
    });
    expect(await server.db('event_subscriptions').where({ id: subscribed.id }).first('events', 'include_item')).toEqual({
      events: ['item.updated'],
      include_item: true,
    });
    await call(client, 'events/unsubscribe', { name: 'item.updated' });
  });

  it('keys subscriptions by client: another token of the same person gets its own, the same token the same one', async () => {
    const eve = await server.account('Eve');
    const base = {
      userId: eve.userId,
      event: 'task.awaitingAgent',
      url: 'http://127.0.0.1:9/x',
      secret: mintSecret(),
      expiresAt: new Date(Date.now() + 60_000),
    };
    const a = await upsertClientSubscription(server.db, { ...base, clientKey: 'oauth:grant-a' });
    const b = await upsertClientSubscription(server.db, { ...base, clientKey: 'oauth:grant-b' });
    const again = await upsertClientSubscription(server.db, { ...base, clientKey: 'oauth:grant-a', secret: mintSecret() });
    expect(b.id).not.toBe(a.id);
    expect(again.id).toBe(a.id);
    expect(again.secret).not.toBe(a.secret);
  });

  it('delivers nothing to a subscription past its refreshBefore', async () => {
    const cy = await server.account('Cy');
    const cyClient = await server.mcp(cy);
    const lapsing = await startReceiver('/lapsing');
    try {
      const secret = mintSecret();
      const sub = await call(cyClient, 'events/subscribe', { name: 'task.awaitingAgent', delivery: { url: lapsing.url, secret } });
      lapsing.secrets.set(sub.id as string, secret);
      await lapsing.verified();
      await server
        .db('event_subscriptions')
        .where({ id: sub.id })
        .update({ expires_at: new Date(Date.now() - 1000) });
      const id = (await create_items(server.context(cy), { items: [{ title: 'Too late' }] })).items[0]!.id;
      await cy.sdk.PATCH('/items', { body: { items: [{ itemId: id, assignedAgent: 'Bot' }] } });
      await new Promise((r) => setTimeout(r, 2500));
      expect(lapsing.events()).toHaveLength(0);
    } finally {
      await lapsing.close();
    }
  });

  it('unsubscribes, after which no event is sent; a second unsubscribe is NotFound', async () => {
    const dee = await server.account('Dee');
    const deeClient = await server.mcp(dee);
    const gone = await startReceiver('/gone');
    try {
      const secret = mintSecret();
      const sub = await call(deeClient, 'events/subscribe', { name: 'task.awaitingAgent', delivery: { url: gone.url, secret } });
      gone.secrets.set(sub.id as string, secret);
      expect(await call(deeClient, 'events/unsubscribe', { name: 'task.awaitingAgent', delivery: { url: gone.url } })).toEqual({});
      expect(await server.db('event_subscriptions').where({ user_id: dee.userId })).toEqual([]);
      const id = (await create_items(server.context(dee), { items: [{ title: 'Nobody listens' }] })).items[0]!.id;
      await dee.sdk.PATCH('/items', { body: { items: [{ itemId: id, assignedAgent: 'Bot' }] } });
      await new Promise((r) => setTimeout(r, 2000));
      expect(gone.events()).toHaveLength(0);
      const err = await callError(deeClient, 'events/unsubscribe', { name: 'task.awaitingAgent' });
      expect(err.code).toBe(-32011);
    } finally {
      await gone.close();
    }
  });

  it.each([
    [
      'a secret without whsec_',
      { name: 'task.awaitingAgent', delivery: { url: 'http://127.0.0.1:9/x', secret: 'plain-secret-of-some-length' } },
      -32602,
      /whsec_/,
    ],
    [
      'a secret of too few bytes',
      { name: 'task.awaitingAgent', delivery: { url: 'http://127.0.0.1:9/x', secret: `whsec_${Buffer.alloc(8).toString('base64')}` } },
      -32602,
      /24 to 64/,
    ],
    ['no delivery', { name: 'task.awaitingAgent' }, -32602, /delivery/],
    ['an unknown event', { name: 'task.done', delivery: { url: 'http://127.0.0.1:9/x', secret: mintSecret() } }, -32011, /Unknown event 'task.done'/],
    [
      'arguments the event does not take',
      { name: 'task.awaitingAgent', arguments: { list: 'x' }, delivery: { url: 'http://127.0.0.1:9/x', secret: mintSecret() } },
      -32602,
      /arguments/,
    ],
    ['a URL that is no URL', { name: 'task.awaitingAgent', delivery: { url: 'nowhere', secret: mintSecret() } }, -32602, /delivery.url/],
    [
      'an argument an item event does not take',
      { name: 'item.updated', arguments: { includeItems: true }, delivery: { url: 'http://127.0.0.1:9/x', secret: mintSecret() } },
      -32602,
      /includeItems/,
    ],
  ])('refuses %s', async (_name, params, code, pattern) => {
    const err = await callError(client, 'events/subscribe', params);
    expect(err.code).toBe(code);
    expect(err.message).toMatch(pattern);
  });
});

describe('MCP events without the dev setting', () => {
  const { server } = useTestServer({ accounts: [] });

  it('refuses a loopback or plain-http callback with InvalidParams', async () => {
    const client = await server.mcp(await server.account('Ada'));
    for (const url of ['http://127.0.0.1:9/x', 'https://127.0.0.1/x', 'https://localhost/x']) {
      const err = await callError(client, 'events/subscribe', { name: 'task.awaitingAgent', delivery: { url, secret: mintSecret() } });
      expect(err.code).toBe(-32602);
    }
  });
});
