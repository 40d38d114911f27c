/**
 * Change events: an `item.updated` subscriber gets one event per committed update, in order
 * per item (also across a failed delivery), and none for a rolled-back one; every event type
 * of the `webhooks` section is sent (a task reminder included), and each payload validates
 * against its schema there.
 */
import { describe, it, expect } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { TestAccount } from '../support/server.js';
import { startReceiver, subscribeWebhook, useDeliveryServer, type Receiver } from '../support/events.js';
import { mintSecret } from '../../src/domain/changes/subscriptions.js';
import { openapiDocument } from '../../src/generated/openapi-document.js';
import { create_items } from '../../src/operations/create_items.js';
import { update_items } from '../../src/operations/update_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { update_list } from '../../src/operations/update_list.js';
import { delete_items } from '../../src/operations/delete_items.js';
import { delete_list } from '../../src/operations/delete_list.js';
import { restore_deleted } from '../../src/operations/restore_deleted.js';
import { move_items } from '../../src/operations/move_items.js';
import { postPersonMessage } from '../../src/domain/chat/chat.js';
import { sendDueReminders } from '../../src/domain/items/reminders.js';

type Payload = { eventId: string; type: string; name: string; data: Record<string, unknown> };

describe('change events', () => {
  const { server } = useDeliveryServer({ accounts: [] });
  const delivered = (receiver: Receiver) =>
    receiver
      .events()
      .filter((e) => e.answered === 200)
      .map((e) => e.payload as unknown as Payload);

  it('sends item.updated once per committed update, in order per item, across a retried delivery, and none for a rollback', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      await subscribeWebhook(ada, receiver, { events: ['item.updated'] });
      await receiver.verified();
      const [a, b] = (await create_items(server.context(ada), { items: [{ title: 'a0' }, { title: 'b0' }] })).items.map((i) => i.id);
      // The first delivery about `a` fails once: a's later events must wait for its retry.
      let failedOnce = false;
      receiver.script = (payload) => {
        if (payload.type === 'verification' || failedOnce || (payload.data as { itemId: string }).itemId !== a) return undefined;
        failedOnce = true;
        return { status: 500 };
      };
      for (let n = 1; n <= 4; n++) {
        await update_items(server.context(ada), { items: [{ itemId: a!, title: `a${n}` }] });
        await update_items(server.context(ada), { items: [{ itemId: b!, title: `b${n}` }] });
      }
      await server.db
        .transaction(async (trx) => {
          await trx('items').where({ id: a }).update({ title: 'rolled back', updated_at: new Date() });
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await receiver.waitFor(() => delivered(receiver).length === 8, 30_000);
      await new Promise((r) => setTimeout(r, 1500));
      const events = delivered(receiver);
      expect(events).toHaveLength(8);
      expect(events.every((e) => e.type === 'item.updated' && e.name === 'item.updated')).toBe(true);
      const titles = (id: string) => events.filter((e) => e.data.itemId === id).map((e) => e.data.title);
      expect(titles(a!)).toEqual(['a1', 'a2', 'a3', 'a4']);
      expect(titles(b!)).toEqual(['b1', 'b2', 'b3', 'b4']);
      expect(failedOnce).toBe(true);
      expect(events.every((e) => (e.data.changed as string[]).join() === 'title')).toBe(true);
      expect(new Set(events.map((e) => e.eventId)).size).toBe(8);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('sends every event type of the webhooks section, each payload valid against its schema there', async () => {
    const bea = await server.account('Bea');
    const receiver = await startReceiver();
    try {
      const types = Object.keys(openapiDocument.webhooks as Record<string, unknown>).filter((t) => t !== 'verification' && t !== 'task.awaitingAgent');
      await subscribeWebhook(bea, receiver, { events: types, includeItem: true });
      await receiver.verified();
      const ctx = server.context(bea);
      const list = await create_list(ctx, { name: 'Errands', template: 'tasks' });
      await update_list(ctx, { id: list.id, name: 'Errands and chores' });
      const [item] = (await create_items(ctx, { listId: list.id, items: [{ title: 'Post the letter' }] })).items;
      await update_items(ctx, { items: [{ itemId: item!.id, title: 'Post the letters' }] });
      await update_items(ctx, { items: [{ itemId: item!.id }], taskStatus: 'completed' });
      await move_items(ctx, { itemIds: [item!.id], listId: 'tasks' });
      await delete_items(ctx, { itemIds: [item!.id] });
      await restore_deleted(ctx, { type: 'item', id: item!.id });
      const row = await server.db('items').where({ id: item!.id }).first();
      await postPersonMessage(server.db, row, { properties: [] }, { id: bea.userId, name: 'Bea' }, 'Done, thanks');
      await delete_list(ctx, { id: list.id });
      await restore_deleted(ctx, { type: 'list', id: list.id });
      // A reminder whose time has come, sent as the reminder loop sends it.
      await create_items(ctx, {
        listId: list.id,
        items: [{ title: 'Call the plumber', dueAt: new Date(Date.now() + 3_600_000).toISOString(), reminderAt: new Date(Date.now() - 60_000).toISOString() }],
      });
      expect(await sendDueReminders(server.db, new Date())).toBe(1);

      await receiver.waitFor(() => new Set(delivered(receiver).map((e) => e.type)).size === types.length, 30_000);
      const events = delivered(receiver);
      expect(new Set(events.map((e) => e.type))).toEqual(new Set(types));

      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats.default(ajv);
      ajv.addSchema({ ...(openapiDocument as object), $id: 'openapi.json' });
      for (const event of events) {
        const pointer = `openapi.json#/webhooks/${event.type}/post/requestBody/content/application~1json/schema`;
        const validate = ajv.getSchema(pointer)!;
        expect({ type: event.type, valid: validate(event), errors: validate.errors ?? null }).toEqual({ type: event.type, valid: true, errors: null });
      }
      const moved = events.find((e) => e.type === 'item.moved')!;
      expect(moved.data).toMatchObject({ itemId: item!.id, previousListId: list.id, changed: ['listId'] });
      expect((moved.data.item as { id: string }).id).toBe(item!.id);
      expect(events.find((e) => e.type === 'chat.replied')!.data).toMatchObject({ itemId: item!.id, authorName: 'Bea', text: 'Done, thanks' });
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('writes an event in the transaction of the change only for an owner subscribed to its type', async () => {
    const cy = await server.account('Cy');
    const dee = await server.account('Dee');
    await server
      .db('event_subscriptions')
      .insert({ user_id: dee.userId, via: 'rest', url: 'http://127.0.0.1:9/x', secret: mintSecret(), events: ['item.created'], status: 'active' });
    const written = async (account: TestAccount) =>
      server.db.transaction(async (trx) => {
        const tasks = (await trx('lists').where({ owner_id: account.userId, system_role: 'tasks' }).first('id')) as { id: string };
        const [row] = (await trx('items').insert({ owner_id: account.userId, list_id: tasks.id, title: 'Quiet' }).returning('id')) as { id: string }[];
        // Read inside the transaction: the pump cannot have taken an uncommitted row yet.
        const events = (await trx('outbox').where({ topic: 'event', subject_id: row!.id }).pluck('payload')) as Payload[];
        return events.map((e) => e.type);
      });
    expect(await written(cy)).toEqual([]);
    expect(await written(dee)).toEqual(['item.created']);
  });
});
