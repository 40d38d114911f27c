import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { create_items } from '../../src/operations/create_items.js';
import { post_chat_message } from '../../src/operations/post_chat_message.js';
import { read_chat_messages } from '../../src/operations/read_chat_messages.js';

describe('post_person_message', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Eve'] });
  const task = async (title: string) => (await create_items(server.context(ada), { items: [{ title }] })).items[0]!.id;

  it("writes as the person, trimmed, marks the agent's message read and logs the reply", async () => {
    const id = await task('Book flights');
    await post_chat_message(server.context(ada), { id, message: 'Which dates?' });
    const posted = await call(server.personContext(ada), 'post_person_message', { id, message: '  The 3rd to the 9th\n' });
    expect(posted).toMatchObject({ authorKind: 'person', authorName: 'Ada', text: 'The 3rd to the 9th', needsInput: false });
    expect((await read_chat_messages(server.context(ada), { id })).messages.map((m) => m.text)).toEqual(['Which dates?', 'The 3rd to the 9th']);
    expect(await server.db('chat_messages').where({ item_id: id, author_kind: 'agent' }).pluck('read_at')).toEqual([expect.any(Date)]);
    const activity = await server.db('activity').where({ user_id: ada.userId, item_id: id, action: 'chat.replied' }).select('summary', 'via_connection');
    expect(activity).toEqual([{ summary: "Wrote in the chat of 'Book flights'", via_connection: false }]);
  });

  it("refuses an empty message, and an item that is not the person's", async () => {
    const id = await task('Quiet');
    await expect(call(server.personContext(ada), 'post_person_message', { id, message: ' \n ' })).rejects.toMatchObject({
      status: 400,
      message: 'The message is empty: write something to send.',
    });
    await expect(call(server.personContext(account('Eve')), 'post_person_message', { id, message: 'Hello' })).rejects.toMatchObject({ status: 404 });
    expect(await server.db('chat_messages').where({ item_id: id }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });
});
