import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { post_chat_message } from '../../src/operations/post_chat_message.js';
import { read_chat_messages } from '../../src/operations/read_chat_messages.js';
import { createShare } from '../../src/domain/lists/shares.js';
import { postPersonMessage } from '../../src/domain/chat/chat.js';

describe('read_chat_messages', () => {
  const { server, ada } = useTestServer();
  const ctx = () => server.context(ada);
  const task = async (title = 'task') => (await create_items(ctx(), { items: [{ title }] })).items[0]!.id;

  it('is empty, with no session, when the item has no chat yet', async () => {
    const id = await task();
    expect(await read_chat_messages(ctx(), { id })).toEqual({ sessionId: null, messages: [], truncated: false });
  });

  it('reads oldest first with limit (default 20) and truncated, and since is exclusive', async () => {
    const id = await task();
    for (let i = 1; i <= 25; i++) await post_chat_message(ctx(), { id, message: `m${i}` });
    const first = await read_chat_messages(ctx(), { id });
    expect(first.messages.map((m) => m.text)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i + 1}`));
    expect(first.truncated).toBe(true);
    const rest = await read_chat_messages(ctx(), { id, since: first.messages.at(-1)!.createdAt });
    expect(rest.messages.map((m) => m.text)).toEqual(['m21', 'm22', 'm23', 'm24', 'm25']);
    expect(rest).toMatchObject({ truncated: false, sessionId: first.sessionId });
    const none = await read_chat_messages(ctx(), { id, since: rest.messages.at(-1)!.createdAt });
    expect(none).toEqual({ sessionId: first.sessionId, messages: [], truncated: false });
    expect((await read_chat_messages(ctx(), { id, limit: 3 })).messages.map((m) => m.text)).toEqual(['m1', 'm2', 'm3']);
  });

  it('gives every message of a burst its own rising createdAt, so paging with since misses none', async () => {
    const id = await task();
    await Promise.all(Array.from({ length: 30 }, (_, i) => post_chat_message(ctx(), { id, message: `burst ${i}` })));
    const seen: string[] = [];
    let since: string | undefined;
    for (;;) {
      const page = await read_chat_messages(ctx(), { id, limit: 7, ...(since ? { since } : {}) });
      seen.push(...page.messages.map((m) => m.text));
      for (let i = 1; i < page.messages.length; i++) expect(page.messages[i]!.createdAt > page.messages[i - 1]!.createdAt).toBe(true);
      if (!page.truncated) break;
      since = page.messages.at(-1)!.createdAt;
    }
    expect(seen.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `burst ${i}`).sort());
  });

  it("shows the person's messages beside the agents' with their author kinds", async () => {
    const id = await task('Trip');
    await post_chat_message(ctx(), { id, message: 'Which dates?', agentName: 'Planner', needsInput: true });
    const item = await server.db('items').where({ id }).first();
    const list = await server.db('lists').where({ id: item.list_id }).first();
    await postPersonMessage(server.db, item, list, { id: ada.userId, name: 'Ada' }, 'The 3rd to the 9th');
    const { messages } = await read_chat_messages(ctx(), { id });
    expect(messages.map((m) => [m.authorKind, m.authorName, m.text])).toEqual([
      ['agent', 'Planner', 'Which dates?'],
      ['person', 'Ada', 'The 3rd to the 9th'],
    ]);
  });

  it('reads an item shared with the caller, and answers 404 for anyone else', async () => {
    const [bea, eve] = [await server.account('Bea'), await server.account('Eve')];
    const id = await task('Shared');
    await post_chat_message(ctx(), { id, message: 'hello' });
    await createShare(server.db, { itemId: id }, bea.userId);
    expect((await read_chat_messages(server.context(bea), { id })).messages).toHaveLength(1);
    const res = await eve.sdk.GET('/items/{id}/messages', { params: { path: { id } } });
    expect(res.response.status).toBe(404);
  });

  it.each([
    ['limit 0', { limit: '0' }],
    ['limit 51', { limit: '51' }],
    ['a since that is no instant', { since: 'yesterday' }],
  ])('refuses %s with 400', async (_name, query) => {
    const id = await task();
    const res = await fetch(`${server.baseUrl}/api/v1/items/${id}/messages?${new URLSearchParams(query)}`, { headers: { Authorization: `Bearer ${ada.key}` } });
    expect(res.status).toBe(400);
  });

  it('reads through REST with since and limit as query parameters, and through MCP', async () => {
    const id = await task();
    const a = await post_chat_message(ctx(), { id, message: 'a' });
    await post_chat_message(ctx(), { id, message: 'b' });
    const rest = await ada.sdk.GET('/items/{id}/messages', { params: { path: { id }, query: { since: a.createdAt, limit: 5 } } });
    expect(rest.data?.messages.map((m) => m.text)).toEqual(['b']);
    const mcp = await server.mcp(ada);
    const viaMcp = await mcp.callTool({ name: 'read_chat_messages', arguments: { id, since: a.createdAt } });
    expect(viaMcp.structuredContent).toEqual(rest.data);
  });
});
