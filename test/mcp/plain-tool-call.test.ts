/**
 * The short way for one plain tools/call (src/mcp/server.ts plainToolCall): its answer is
 * the protocol server's, byte for byte, for results, refusals and unknown tools; a call the
 * SDK's transport would refuse, or one with `_meta`, still goes through the SDK.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { mcpPost } from '../support/http.js';

const VERSION = '2025-11-25';
const call = (id: number | string, name: string, args?: Record<string, unknown>, meta?: object) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, ...(args === undefined ? {} : { arguments: args }), ...(meta ? { _meta: meta } : {}) },
});

describe('a plain tools/call', () => {
  const { server, ada } = useTestServer();
  let headers: Record<string, string>;
  let itemId: string;
  let wideId: string;
  beforeAll(async () => {
    headers = { Authorization: `Bearer ${ada.key}`, 'MCP-Protocol-Version': VERSION };
    itemId = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Read the profile', body: '- [ ] one' }] } })).data!.items[0]!.id;
    // Characters of two, three and four bytes in UTF-8, and ones JSON escapes: the answer is written into a buffer by byte counts.
    const wide = { title: 'Café ☕ 日本 "quoted" \\ back\tslash 🧾', body: 'Zeile eins\nzwei — drei' };
    wideId = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [wide] } })).data!.items[0]!.id;
  });

  // `_meta` (empty: it asks for nothing) sends the same call through the protocol server.
  const both = async (id: number | string, name: string, args?: Record<string, unknown>) => {
    const short = await mcpPost(server.baseUrl, call(id, name, args), headers);
    const sdk = await mcpPost(server.baseUrl, call(id, name, args, {}), headers);
    return { short, sdk };
  };

  it.each([
    ['get_item', { id: 'ITEM' }],
    ['get_item', { id: 'WIDE' }],
    ['list_lists', undefined],
    ['list_items', { listId: 'tasks', limit: 5 }],
    ['get_item', { id: '00000000-0000-4000-8000-000000000000' }],
    ['get_item', { nope: 1 }],
    ['no_such_tool', {}],
    // Every entry fails: a result with structuredContent and isError.
    ['create_items', { listId: 'tasks', items: [{ title: 'x', taskStatus: 'bogus' }] }],
  ] as const)('answers %s %j exactly as the protocol server does', async (name, args) => {
    const named: Record<string, string> = { ITEM: itemId, WIDE: wideId };
    const resolved = args && 'id' in args && named[args.id] ? { id: named[args.id] } : (args as Record<string, unknown> | undefined);
    const { short, sdk } = await both(7, name, resolved);
    expect(short.status).toBe(200);
    expect(short.status).toBe(sdk.status);
    expect(short.headers['content-type']).toBe(sdk.headers['content-type']);
    expect(short.text).toBe(sdk.text);
    expect(short.headers['content-length']).toBe(String(Buffer.byteLength(short.text)));
    if (name === 'create_items') expect(short.json<{ result: object }>().result).toMatchObject({ structuredContent: { added: 0, items: [] }, isError: true });
  });

  it('keeps a string id', async () => {
    const { short, sdk } = await both('call-1', 'list_lists');
    expect(short.json<{ id: string }>().id).toBe('call-1');
    expect(short.text).toBe(sdk.text);
  });

  it('leaves a call the transport refuses to the SDK', async () => {
    const noStream = await mcpPost(server.baseUrl, call(1, 'list_lists'), { ...headers, Accept: 'application/json' });
    expect(noStream.status).toBe(406);
    const oldVersion = await mcpPost(server.baseUrl, call(1, 'list_lists'), { ...headers, 'MCP-Protocol-Version': '2023-01-01' });
    expect(oldVersion.status).toBe(400);
    const badArguments = await mcpPost(server.baseUrl, { ...call(1, 'list_lists'), params: { name: 'list_lists', arguments: [1] } }, headers);
    // A JSON-RPC error from the protocol server, not a tool result.
    expect(badArguments.json<{ error?: { code: number }; result?: unknown }>().error).toBeDefined();
  });
});
