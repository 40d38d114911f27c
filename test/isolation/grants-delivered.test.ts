/**
 * A one-list grant and what is delivered from outside a call: event subscriptions (REST
 * webhooks and MCP `events/subscribe`) made by a connection that reaches Groceries only get
 * Groceries' events, and the grant is read at fan-out, so narrowing it in Settings holds from
 * the next event; the calendar feed it makes serves Groceries' tasks only. Non-delivery is shown by order: an event on the other list goes first, one
 * on the granted list second, and only the second arrives (nor was a delivery of the first made).
 * @see docs/auth.md "Grants"
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { create_list } from '../../src/operations/create_list.js';
import { create_items } from '../../src/operations/create_items.js';
import { createClient } from '../../sdk/src/index.js';
import { mintSecret } from '../../src/domain/changes/subscriptions.js';
import { startReceiver, subscribeWebhook, useDeliveryServer, type Receiver } from '../support/events.js';
import type { TestAccount } from '../support/server.js';

describe('a one-list grant and events', () => {
  const { server, ada: lola } = useDeliveryServer({
    accounts: ['Lola'],
    beforeClose: async () => {
      await receiver.close();
    },
  });
  let receiver: Receiver;
  let key: TestAccount;
  const lists = { groceries: '', journal: '' };

  beforeAll(async () => {
    receiver = await startReceiver();
    const person = server.personContext(lola);
    lists.groceries = (await create_list(person, { name: 'Groceries', template: 'tasks' })).id;
    lists.journal = (await create_list(person, { name: 'Journal', template: 'tasks' })).id;
    const token = await createApiKey(server.db, lola.userId, { level: 'write', lists: [lists.groceries], later: false, since: new Date().toISOString() });
    key = { ...lola, key: token, sdk: createClient({ baseUrl: server.baseUrl, token }) };
  });

  /** Makes an item on `listId` as the person (every list), returning its id. */
  async function make(listId: string, title: string): Promise<string> {
    return (await create_items(server.personContext(lola), { listId, items: [{ title }] })).items[0]!.id;
  }

  /** The item ids of the item events delivered to subscription `id`. */
  const delivered = (id: string) =>
    receiver
      .events()
      .filter((e) => e.headers['x-mcp-subscription-id'] === id)
      .map((e) => (e.payload!.data as { itemId: string }).itemId);

  /** Makes one item on `outside`, then one on `inside`; waits for the second and shows only it came (and no delivery of the first was made). */
  async function onlyInside(subscription: string, outside: string, inside: string): Promise<void> {
    const skipped = await make(outside, 'Outside');
    const sent = await make(inside, 'Inside');
    await receiver.waitFor(() => delivered(subscription).includes(sent));
    expect(delivered(subscription)).not.toContain(skipped);
    expect(await server.db('webhook_deliveries').where({ subscription_id: subscription, subject_id: skipped })).toEqual([]);
  }

  it('delivers a REST webhook only the granted list’s events, and follows a grant narrowed later', async () => {
    const sub = await subscribeWebhook(key, receiver, { events: ['item.created'] });
    await receiver.verified(sub.id);
    await onlyInside(sub.id, lists.journal, lists.groceries);
    // Settings changes the key to Journal alone: from the next event on, Groceries' are not sent.
    const grant = { level: 'write', lists: [lists.journal], later: false, since: new Date().toISOString() };
    await server
      .db('api_keys')
      .where({ user_id: lola.userId })
      .update({ grant: JSON.stringify(grant) });
    await onlyInside(sub.id, lists.groceries, lists.journal);
  });

  it('delivers MCP events/subscribe only the granted list’s events', async () => {
    const grant = { level: 'write', lists: [lists.groceries], later: false, since: new Date().toISOString() };
    await server
      .db('api_keys')
      .where({ user_id: lola.userId })
      .update({ grant: JSON.stringify(grant) });
    const client = await server.mcp(key);
    const secret = mintSecret();
    const answer = (await client.request(
      { method: 'events/subscribe', params: { name: 'item.created', delivery: { mode: 'webhook', url: receiver.url, secret } } } as never,
      (await import('zod')).looseObject({}),
    )) as { id: string };
    receiver.secrets.set(answer.id, secret);
    await receiver.verified(answer.id);
    await onlyInside(answer.id, lists.journal, lists.groceries);
  });

  it('makes a calendar feed that serves only the granted list’s tasks', async () => {
    const grant = { level: 'write', lists: [lists.groceries], later: false, since: new Date().toISOString() };
    await server
      .db('api_keys')
      .where({ user_id: lola.userId })
      .update({ grant: JSON.stringify(grant) });
    const person = server.personContext(lola);
    await create_items(person, { listId: lists.journal, items: [{ title: 'Journal due', dueAt: '2026-12-05T09:00:00Z' }] });
    await create_items(person, { listId: lists.groceries, items: [{ title: 'Groceries due', dueAt: '2026-12-06T09:00:00Z' }] });
    const made = await key.sdk.POST('/calendar-feed', {});
    expect(made.response.status).toBe(201);
    const feed = await (await fetch(made.data!.url)).text();
    expect(feed).toContain('Groceries due');
    expect(feed).not.toContain('Journal due');
    // Narrowed in Settings to Journal: the same address follows.
    await server
      .db('api_keys')
      .where({ user_id: lola.userId })
      .update({ grant: JSON.stringify({ ...grant, lists: [lists.journal] }) });
    const narrowed = await (await fetch(made.data!.url)).text();
    expect(narrowed).toContain('Journal due');
    expect(narrowed).not.toContain('Groceries due');
  });
});
