/** When task.awaitingAgent is released: assigning a task to an agent, and the person answering an agent's question. */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../../support/server.js';
import { create_items } from '../../../src/operations/create_items.js';
import { create_list } from '../../../src/operations/create_list.js';
import { update_items } from '../../../src/operations/update_items.js';
import { get_item } from '../../../src/operations/get_item.js';
import { post_chat_message } from '../../../src/operations/post_chat_message.js';
import { postPersonMessage } from '../../../src/domain/chat/chat.js';
import { createShare } from '../../../src/domain/lists/shares.js';
import { ApiError } from '../../../src/core/errors.js';

describe('task.awaitingAgent is released', () => {
  const { server, ada } = useTestServer();
  const ctx = () => server.context(ada);
  const task = async (title: string) => (await create_items(ctx(), { items: [{ title }] })).items[0]!.id;
  const events = async (taskId: string) =>
    ((await server.db('outbox').where({ topic: 'event', subject_id: taskId }).orderBy('id')) as { payload: Record<string, unknown> }[]).map((r) => r.payload);
  const reply = async (id: string, text: string) => {
    const item = await server.db('items').where({ id }).first();
    const list = await server.db('lists').where({ id: item.list_id }).first();
    return postPersonMessage(server.db, item, list, { id: ada.userId, name: 'Ada' }, text);
  };

  it('with reason assigned when a task is assigned to an agent, once per change, in the delivery payload shape', async () => {
    const id = await task('Renew passport');
    const result = await update_items(ctx(), { items: [{ itemId: id, assignedAgent: 'Errand bot' }] });
    expect(result.items[0]!.assignedAgent).toBe('Errand bot');
    expect((await get_item(ctx(), { id })).assignedAgent).toBe('Errand bot');
    const [event, ...more] = await events(id);
    expect(more).toEqual([]);
    expect(event).toEqual({
      eventId: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: 'task.awaitingAgent',
      name: 'task.awaitingAgent',
      timestamp: expect.any(String),
      data: { taskId: id, title: 'Renew passport', reason: 'assigned', agentName: 'Errand bot', occurredAt: expect.any(String) },
      cursor: null,
    });
    await update_items(ctx(), { items: [{ itemId: id, assignedAgent: 'Errand bot', title: 'Renew passport now' }] });
    expect(await events(id)).toHaveLength(1);
    await update_items(ctx(), { items: [{ itemId: id, assignedAgent: 'Other bot' }] });
    expect((await events(id)).map((e) => (e.data as { agentName: string }).agentName)).toEqual(['Errand bot', 'Other bot']);
  });

  it('not when unassigning ("") nor for a completed task, and an assignment is left alone by null', async () => {
    const id = await task('Done already');
    await update_items(ctx(), { items: [{ itemId: id }], taskStatus: 'completed' });
    await update_items(ctx(), { items: [{ itemId: id, assignedAgent: 'Late bot' }] });
    expect(await events(id)).toEqual([]);
    expect((await update_items(ctx(), { items: [{ itemId: id, assignedAgent: null }] })).items[0]!.assignedAgent).toBe('Late bot');
    expect((await update_items(ctx(), { items: [{ itemId: id, assignedAgent: '' }] })).items[0]!.assignedAgent).toBeNull();
    expect(await events(id)).toEqual([]);
  });

  it('refuses assignedAgent on an item of a list that keeps no status, and on an item shared one by one', async () => {
    const notes = await create_list(ctx(), { name: 'Ideas' });
    const note = (await create_items(ctx(), { listId: notes.id, items: [{ title: 'An idea' }] })).items[0]!.id;
    await expect(update_items(ctx(), { items: [{ itemId: note, assignedAgent: 'Bot' }] })).rejects.toThrow(/assignedAgent is for tasks/);
    const bea = await server.account('Bea');
    const shared = await task('Shared one by one');
    await createShare(server.db, { itemId: shared }, bea.userId);
    await expect(update_items(server.context(bea), { items: [{ itemId: shared, assignedAgent: 'Bot' }] })).rejects.toThrow(ApiError);
    expect(await events(shared)).toEqual([]);
  });

  it('follows the batch rule: an entry written before a refusal keeps its event, the refused entry emits none', async () => {
    const [id, refused] = [await task('Written'), await task('Refused')];
    await expect(
      update_items(ctx(), {
        items: [
          { itemId: id, assignedAgent: 'Bot' },
          { itemId: refused, assignedAgent: 'Bot', values: { Colour: 'red' } },
        ],
      }),
    ).rejects.toThrow(/unknown property 'Colour'/);
    expect(await events(id)).toHaveLength(1);
    expect(await events(refused)).toEqual([]);
    expect((await get_item(ctx(), { id: refused })).assignedAgent).toBeNull();
  });

  it('with reason reply when the person answers an agent that asked with needsInput, once per answer', async () => {
    const id = await task('Plan trip');
    await post_chat_message(ctx(), { id, message: 'Which city?', agentName: 'Planner', needsInput: true });
    expect((await reply(id, 'Rome')).released).toBe(true);
    expect((await reply(id, 'Or maybe Naples')).released).toBe(false);
    await post_chat_message(ctx(), { id, message: 'Noted, booking.', agentName: 'Planner' });
    expect((await reply(id, 'Thanks')).released).toBe(false);
    const all = await events(id);
    expect(all.map((e) => e.data)).toEqual([{ taskId: id, title: 'Plan trip', reason: 'reply', agentName: 'Planner', occurredAt: expect.any(String) }]);
  });

  it('not for a reply on an item that is no task', async () => {
    const notes = await create_list(ctx(), { name: 'Journal' });
    const note = (await create_items(ctx(), { listId: notes.id, items: [{ title: 'Entry' }] })).items[0]!.id;
    await post_chat_message(ctx(), { id: note, message: 'Shall I tidy this?', needsInput: true });
    expect((await reply(note, 'yes')).released).toBe(false);
    expect(await events(note)).toEqual([]);
  });
});
