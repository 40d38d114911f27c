import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { create_items } from '../../src/operations/create_items.js';
import { post_chat_message } from '../../src/operations/post_chat_message.js';

describe('mark_chat_read', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Eve'] });

  it("marks the agents' messages read once, writing no activity line", async () => {
    const id = (await create_items(server.context(ada), { items: [{ title: 'Plan' }] })).items[0]!.id;
    await post_chat_message(server.context(ada), { id, message: 'one' });
    await post_chat_message(server.context(ada), { id, message: 'two' });
    const before = await server.db('activity').where({ user_id: ada.userId }).count({ n: '*' });
    expect(await call(server.personContext(ada), 'mark_chat_read', { id })).toEqual({ id, marked: 2 });
    expect(await call(server.personContext(ada), 'mark_chat_read', { id })).toEqual({ id, marked: 0 });
    expect(await server.db('activity').where({ user_id: ada.userId }).count({ n: '*' })).toEqual(before);
  });

  it("answers 404 for another person's item and leaves its messages unread", async () => {
    const id = (await create_items(server.context(ada), { items: [{ title: 'Mine' }] })).items[0]!.id;
    await post_chat_message(server.context(ada), { id, message: 'unread' });
    await expect(call(server.personContext(account('Eve')), 'mark_chat_read', { id })).rejects.toMatchObject({ status: 404 });
    expect(await server.db('chat_messages').where({ item_id: id }).pluck('read_at')).toEqual([null]);
  });
});
