/**
 * Confirmations by elicitation on 2026-07-28 (src/mcp/elicitation.ts): where an operation asks
 * a confirmation and the client declares elicitation, the call answers `input_required` with
 * the question in plain words and writes nothing; the retry carrying the person's yes does it,
 * a no leaves everything as it is. A client without elicitation, or of an older revision, gets
 * the operation's own answer exactly as before.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { mcpPost, modernMessage, modernPost } from '../support/http.js';

type Json = Record<string, unknown>;
interface ToolAnswer {
  resultType: string;
  content?: { type: string; text: string }[];
  structuredContent?: Json;
  isError?: boolean;
  inputRequests?: Record<string, { method: string; params: { mode: string; message: string; requestedSchema: Json } }>;
  requestState?: string;
  _meta?: Json;
}

const ELICITATION = { elicitation: { form: {} } };

describe('confirmation by elicitation', () => {
  const { server, ada } = useTestServer();
  let auth: Record<string, string>;
  beforeAll(() => {
    auth = { Authorization: `Bearer ${ada.key}` };
  });

  const call = async (name: string, args: Json, capabilities: Json = ELICITATION, retry: Json = {}): Promise<ToolAnswer> => {
    const message = modernMessage(1, 'tools/call', { name, arguments: args, ...retry }, capabilities);
    const res = await modernPost(server.baseUrl, message, auth);
    expect(res.status).toBe(200);
    return res.json<{ result: ToolAnswer }>().result;
  };
  const yes = (asked: ToolAnswer, field: string) => ({
    inputResponses: { [field]: { action: 'accept', content: { confirm: true } } },
    requestState: asked.requestState,
  });

  /** A list with a text property Pages and books whose pages are words or numbers. */
  const books = async (pages: string[]) => {
    const list = (await call('create_list', { name: `Books ${Math.random().toString(36).slice(2, 8)}`, properties: [{ name: 'Pages', type: 'text' }] }))
      .structuredContent as { id: string; name: string; properties: { id: string }[] };
    await call('create_items', { listId: list.id, items: pages.map((p, i) => ({ title: `Book ${i}`, values: { Pages: p } })) });
    return list;
  };
  const pagesOf = async (listId: string) => {
    const page = (await call('list_items', { listId, limit: 50 })).structuredContent as { items: { title: string; values: Record<string, unknown> }[] };
    return page.items.map((i) => Object.values(i.values)[0] ?? null).sort();
  };
  const typeOf = async (listId: string) =>
    ((await call('list_lists', {})).structuredContent as { lists: { id: string; properties: { type: string }[] }[] }).lists.find((l) => l.id === listId)!
      .properties[0]!.type;

  it('asks the person before a retype that drops values, writes nothing, and carries it out on their yes', async () => {
    const list = await books(['320', 'twelve', 'n/a']);
    const retype = { id: list.id, updateProperty: { id: list.properties[0]!.id, type: 'number' } };

    const asked = await call('update_list', retype);
    expect(asked.resultType).toBe('input_required');
    expect(asked.content).toBeUndefined();
    const request = asked.inputRequests!.acknowledgeDataLoss!;
    expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', requestedSchema: { required: ['confirm'] } } });
    expect(request.params.message).toMatch(
      new RegExp(
        `^In the list '${list.name}', retyping 'Pages' from text to number clears values in 2 items \\(such as '.+', '.+'\\)\\. .*Make the change\\?$`,
      ),
    );
    expect(asked.requestState).toEqual(expect.any(String));
    expect(asked._meta).toHaveProperty(['io.modelcontextprotocol/serverInfo']);
    expect(await typeOf(list.id)).toBe('text');

    const done = await call('update_list', retype, ELICITATION, yes(asked, 'acknowledgeDataLoss'));
    expect(done).toMatchObject({ resultType: 'complete', structuredContent: { preview: false, properties: [{ type: 'number' }] } });
    expect(await typeOf(list.id)).toBe('number');
    expect(await pagesOf(list.id)).toEqual([320, null, null]);
  });

  it('leaves everything as it is when the person says no, and says so first', async () => {
    const list = await books(['twelve']);
    const retype = { id: list.id, updateProperty: { id: list.properties[0]!.id, type: 'number' } };
    const asked = await call('update_list', retype);
    const refused = await call('update_list', retype, ELICITATION, {
      inputResponses: { acknowledgeDataLoss: { action: 'decline' } },
      requestState: asked.requestState,
    });
    expect(refused.resultType).toBe('complete');
    expect(refused.content![0]!.text).toMatch(/^The person said no to "In the list .*" Nothing was changed/);
    expect(refused.structuredContent).toMatchObject({ preview: true });
    expect(await typeOf(list.id)).toBe('text');
    const accepted_no = await call('update_list', retype, ELICITATION, {
      inputResponses: { acknowledgeDataLoss: { action: 'accept', content: { confirm: false } } },
      requestState: asked.requestState,
    });
    expect(accepted_no.content![0]!.text).toMatch(/^The person said no/);
    expect(await typeOf(list.id)).toBe('text');
  });

  it('asks again when the yes answers a question the workspace has since outgrown', async () => {
    const list = await books(['twelve']);
    const retype = { id: list.id, updateProperty: { id: list.properties[0]!.id, type: 'number' } };
    const asked = await call('update_list', retype);
    expect(asked.inputRequests!.acknowledgeDataLoss!.params.message).toContain('clears values in 1 item');
    await call('create_items', { listId: list.id, items: [{ title: 'Another', values: { Pages: 'many' } }] });
    const again = await call('update_list', retype, ELICITATION, yes(asked, 'acknowledgeDataLoss'));
    expect(again.resultType).toBe('input_required');
    expect(again.inputRequests!.acknowledgeDataLoss!.params.message).toContain('clears values in 2 items');
    expect(await typeOf(list.id)).toBe('text');
  });

  it('gives a client without elicitation the preview it always had, exactly as an older revision answers', async () => {
    const list = await books(['twelve']);
    const retype = { id: list.id, updateProperty: { id: list.properties[0]!.id, type: 'number' } };
    const { resultType, _meta, ...modern } = await call('update_list', retype, {});
    expect(resultType).toBe('complete');
    const legacy = await mcpPost(
      server.baseUrl,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'update_list', arguments: retype } },
      { ...auth, 'MCP-Protocol-Version': '2025-11-25' },
    );
    expect(modern).toEqual(legacy.json<{ result: Json }>().result);
    expect(modern.structuredContent).toMatchObject({ preview: true, warning: expect.stringContaining('acknowledgeDataLoss: true') });
  });

  it('gives a 2025-11-25 client that declared elicitation the same preview (no server-to-client request on a stateless JSON answer)', async () => {
    const list = await books(['twelve']);
    const retype = { id: list.id, updateProperty: { id: list.properties[0]!.id, type: 'number' } };
    const headers = { ...auth, 'MCP-Protocol-Version': '2025-11-25' };
    const init = await mcpPost(
      server.baseUrl,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: ELICITATION, clientInfo: { name: 't', version: '1' } },
      },
      auth,
    );
    expect(init.status).toBe(200);
    const res = await mcpPost(server.baseUrl, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'update_list', arguments: retype } }, headers);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json<{ result: Json }>().result).toMatchObject({ structuredContent: { preview: true } });
  });

  it('asks before deleting a list that still holds items, and deletes it with them on a yes', async () => {
    const list = await books(['1', '2']);
    const asked = await call('delete_list', { id: list.id });
    expect(asked.resultType).toBe('input_required');
    expect(asked.inputRequests!.confirmDeleteItems!.params.message).toBe(
      `Delete the list '${list.name}' with the 2 items on it? They go to the trash, where the list can be restored with them for a while.`,
    );
    expect(await typeOf(list.id)).toBe('text');
    const done = await call('delete_list', { id: list.id }, ELICITATION, yes(asked, 'confirmDeleteItems'));
    expect(done.structuredContent).toMatchObject({ deleted: true, itemsDeleted: 2 });
    const refusedWithout = await call('delete_list', { id: (await books(['1'])).id }, {});
    expect(refusedWithout).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('send confirmDeleteItems: true') }] });
  });

  it('asks before replacing whole bodies, and before a move that drops values', async () => {
    const list = await books(['twelve']);
    const item = ((await call('list_items', { listId: list.id })).structuredContent as { items: { id: string }[] }).items[0]!;
    const replace = { items: [{ itemId: item.id, body: 'new text' }], mode: 'replace' };
    const asked = await call('update_items', replace);
    expect(asked.inputRequests!.confirmReplace!.params.message).toBe(
      'Replace the whole text of this item with new text? What is written there now is overwritten.',
    );
    const done = await call('update_items', replace, ELICITATION, yes(asked, 'confirmReplace'));
    expect(done.isError).toBeFalsy();

    const move = { itemIds: [item.id], listId: 'notes' };
    const askedMove = await call('move_items', move);
    expect(askedMove.inputRequests!.acknowledgeDataLoss!.params.message).toBe(
      "Move 1 item to 'Notes'? The list has no place for this value, which would be lost: Pages 'twelve'.",
    );
    const moved = await call('move_items', move, ELICITATION, yes(askedMove, 'acknowledgeDataLoss'));
    expect(moved.structuredContent).toMatchObject({ preview: false, listName: 'Notes' });
  });

  it('refuses inputResponses that are not elicitation answers with -32602', async () => {
    for (const inputResponses of [42, null, { acknowledgeDataLoss: { action: 'maybe' } }]) {
      const message = modernMessage(1, 'tools/call', { name: 'list_lists', arguments: {}, inputResponses }, ELICITATION);
      const res = await modernPost(server.baseUrl, message, auth);
      expect(res.json<{ error: { code: number } }>().error.code).toBe(-32602);
    }
  });
});
