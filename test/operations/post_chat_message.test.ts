import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { post_chat_message } from '../../src/operations/post_chat_message.js';
import { read_chat_messages } from '../../src/operations/read_chat_messages.js';
import { get_item } from '../../src/operations/get_item.js';
import { createShare } from '../../src/domain/lists/shares.js';
import { mainConversation } from '../../src/domain/chat/chat.js';

describe('post_chat_message', () => {
  const { server, ada } = useTestServer();
  const ctx = () => server.context(ada);
  const task = async (title = 'task') => (await create_items(ctx(), { items: [{ title }] })).items[0]!.id;

  it('posts as the calling agent with the default name, unread, logged in the activity log', async () => {
    const id = await task('Book flights');
    const posted = await post_chat_message(ctx(), { id, message: 'Found **two** options.' });
    expect(posted).toEqual({ id: expect.any(String), sessionId: expect.any(String), createdAt: expect.any(String) });
    const read = await read_chat_messages(ctx(), { id });
    expect(read.sessionId).toBe(posted.sessionId);
    expect(read.messages).toEqual([
      {
        id: posted.id,
        authorKind: 'agent',
        authorName: 'Your agent',
        text: 'Found **two** options.',
        needsInput: false,
        messageKey: null,
        createdAt: posted.createdAt,
        updatedAt: posted.createdAt,
      },
    ]);
    const row = await server.db('chat_messages').where({ id: posted.id }).first();
    expect(row.read_at).toBeNull();
    const activity = await server.db('activity').where({ user_id: ada.userId, item_id: id }).select('action', 'summary', 'via_connection');
    expect(activity).toEqual([{ action: 'chat.posted', summary: "Your agent posted in the chat of 'Book flights'", via_connection: true }]);
  });

  it('keeps one session per chat and names the agent', async () => {
    const id = await task();
    const a = await post_chat_message(ctx(), { id, message: 'one', agentName: 'Travel agent' });
    const b = await post_chat_message(ctx(), { id, message: 'two', agentName: 'Travel agent', needsInput: true });
    expect(b.sessionId).toBe(a.sessionId);
    const read = await read_chat_messages(ctx(), { id });
    expect(read.messages.map((m) => [m.authorName, m.text, m.needsInput])).toEqual([
      ['Travel agent', 'one', false],
      ['Travel agent', 'two', true],
    ]);
    expect((await get_item(ctx(), { id })).guidance).toMatch(/Travel agent asked the person a question/);
  });

  it('lands a messageKey once: the same key again updates the same message and makes it unread again', async () => {
    const id = await task();
    const first = await post_chat_message(ctx(), { id, message: 'Draft 1', messageKey: 'summary' });
    await server.db('chat_messages').where({ id: first.id }).update({ read_at: new Date() });
    const again = await post_chat_message(ctx(), { id, message: 'Draft 2', messageKey: 'summary', agentName: 'Writer', needsInput: true });
    expect(again).toEqual(first);
    const { messages } = await read_chat_messages(ctx(), { id });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      id: first.id,
      text: 'Draft 2',
      authorName: 'Writer',
      needsInput: true,
      messageKey: 'summary',
      createdAt: first.createdAt,
    });
    expect(messages[0]!.updatedAt > first.createdAt).toBe(true);
    expect((await server.db('chat_messages').where({ id: first.id }).first()).read_at).toBeNull();
    const other = await post_chat_message(ctx(), { id, message: 'Other', messageKey: 'other' });
    expect(other.id).not.toBe(first.id);
  });

  it('lands concurrent posts with one messageKey once', async () => {
    const id = await task();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => post_chat_message(ctx(), { id, message: `try ${i}`, messageKey: 'retry-safe' })));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect((await read_chat_messages(ctx(), { id })).messages).toHaveLength(1);
  });

  it("shows each agent post as a line of the person's main conversation, across items", async () => {
    const [a, b] = [await task('Alpha'), await task('Beta')];
    await post_chat_message(ctx(), { id: a, message: 'On Alpha', agentName: 'Bot A' });
    await post_chat_message(ctx(), { id: b, message: 'On Beta', agentName: 'Bot B', needsInput: true });
    const lines = (await mainConversation(server.db, ada.userId)).filter((l) => [a, b].includes(l.itemId));
    expect(lines.map((l) => [l.itemTitle, l.agentName, l.text, l.unread, l.needsInput])).toEqual([
      ['Beta', 'Bot B', 'On Beta', true, true],
      ['Alpha', 'Bot A', 'On Alpha', true, false],
    ]);
  });

  it('posts on an item shared with the caller, which the owner then sees', async () => {
    const bea = await server.account('Bea');
    const id = await task('Shared plan');
    await createShare(server.db, { itemId: id }, bea.userId);
    await post_chat_message(server.context(bea), { id, message: "From Bea's agent", agentName: 'Bea bot' });
    expect((await read_chat_messages(ctx(), { id })).messages.map((m) => m.authorName)).toEqual(['Bea bot']);
    expect((await mainConversation(server.db, ada.userId)).some((l) => l.itemId === id)).toBe(true);
    expect((await mainConversation(server.db, bea.userId)).some((l) => l.itemId === id)).toBe(true);
  });

  it.each([
    ['an empty message', { message: '' }, /message/],
    ['a message over 20000 characters', { message: 'x'.repeat(20001) }, /message/],
    ['an agentName over 60 characters', { message: 'hi', agentName: 'a'.repeat(61) }, /agentName/],
    ['a messageKey over 120 characters', { message: 'hi', messageKey: 'k'.repeat(121) }, /messageKey/],
    ['an unknown field', { message: 'hi', mood: 'happy' }, /mood/],
  ])('refuses %s with 400 naming the field', async (_name, body, pattern) => {
    const id = await task();
    const res = await ada.sdk.POST('/items/{id}/messages', { params: { path: { id } }, body: body as never });
    expect(res.response.status).toBe(400);
    expect((res.error as { error: string }).error).toMatch(pattern);
  });

  it('accepts 20000 characters and a 60-character agent name and a 120-character key', async () => {
    const id = await task();
    const res = await ada.sdk.POST('/items/{id}/messages', {
      params: { path: { id } },
      body: { message: 'y'.repeat(20000), agentName: 'n'.repeat(60), messageKey: 'k'.repeat(120) },
    });
    expect(res.response.status).toBe(201);
  });

  it("answers 404 for another person's item and for a trashed one, posting nothing", async () => {
    const eve = await server.account('Eve');
    const id = await task('Private');
    const res = await eve.sdk.POST('/items/{id}/messages', { params: { path: { id } }, body: { message: 'sneaky' } });
    expect(res.response.status).toBe(404);
    expect(res.error).toMatchObject({ code: 'notFound' });
    await ada.sdk.DELETE('/items', { body: { itemIds: [id] } });
    expect((await ada.sdk.POST('/items/{id}/messages', { params: { path: { id } }, body: { message: 'late' } })).response.status).toBe(404);
    expect(await server.db('chat_messages').where({ item_id: id }).count('* as n').first()).toEqual({ n: 0 });
  });

  it('posts through REST (201) and MCP with the same result shape', async () => {
    const id = await task();
    const rest = await ada.sdk.POST('/items/{id}/messages', { params: { path: { id } }, body: { message: 'via REST', messageKey: 'k1' } });
    expect(rest.response.status).toBe(201);
    const mcp = await server.mcp(ada);
    const viaMcp = await mcp.callTool({ name: 'post_chat_message', arguments: { id, message: 'via MCP', messageKey: 'k1' } });
    expect(viaMcp.isError).toBeFalsy();
    expect(viaMcp.structuredContent).toEqual(rest.data);
    const read = await mcp.callTool({ name: 'read_chat_messages', arguments: { id } });
    expect((read.structuredContent as { messages: { text: string }[] }).messages.map((m) => m.text)).toEqual(['via MCP']);
    const missing = await mcp.callTool({ name: 'post_chat_message', arguments: { id: '00000000-0000-4000-8000-000000000000', message: 'x' } });
    expect(missing.isError).toBe(true);
  });
});
