/**
 * The 2026-07-28 revision as a client of it speaks it, in raw JSON-RPC: no initialize, the
 * envelope in every request's `_meta`, the standard headers mirrored from the body. Each
 * request stands alone; results carry `resultType`, the server's name and, where the
 * revision makes them cacheable, `ttlMs` and `cacheScope`; refusals use the revision's codes.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { mcpPost, MODERN_VERSION, modernHeaders, modernMessage, modernPost, type RawResponse } from '../support/http.js';

type Result = Record<string, unknown> & { resultType: string; _meta: Record<string, unknown> };
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'listkeeper', version: expect.any(String) } };

describe('MCP 2026-07-28', () => {
  const { server, ada } = useTestServer();
  let auth: Record<string, string>;
  beforeAll(() => {
    auth = { Authorization: `Bearer ${ada.key}` };
  });
  const post = (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, capabilities = {}) =>
    modernPost(server.baseUrl, modernMessage(1, method, params, capabilities), { ...auth, ...headers });
  const result = (res: RawResponse) => res.json<{ result: Result }>().result;
  const error = (res: RawResponse) => res.json<{ id: unknown; error: { code: number; message: string; data?: Record<string, unknown> } }>();

  it('answers server/discover without any handshake: versions, capabilities with the events extension, instructions', async () => {
    const res = await post('server/discover');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(result(res)).toEqual({
      supportedVersions: [MODERN_VERSION, ...LEGACY],
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
        completions: {},
        extensions: expect.objectContaining({ 'io.modelcontextprotocol/events': { listChanged: false, delivery: ['webhook'] } }),
      },
      instructions: expect.stringContaining('get_context'),
      ttlMs: 300_000,
      cacheScope: 'public',
      resultType: 'complete',
      _meta: SERVER_INFO,
    });
  });

  it.each([
    ['tools/list', {}, { ttlMs: 300_000, cacheScope: 'private' }],
    ['prompts/list', {}, { ttlMs: 300_000, cacheScope: 'public' }],
    ['resources/templates/list', {}, { ttlMs: 300_000, cacheScope: 'public' }],
    ['resources/list', {}, { ttlMs: 0, cacheScope: 'private' }],
    ['resources/read', { uri: 'listkeeper://lists/tasks' }, { ttlMs: 0, cacheScope: 'private' }],
    ['prompts/get', { name: 'plan_my_day', arguments: {} }, {}],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'triage_inbox' }, argument: { name: 'list', value: 'T' } }, {}],
    ['events/list', {}, {}],
  ])('answers %s with resultType, the server info and its caching hints', async (method, params, hints) => {
    const res = await post(method, params);
    expect(res.status).toBe(200);
    const body = result(res);
    expect(body).toMatchObject({ resultType: 'complete', _meta: SERVER_INFO, ...hints });
    if (!('ttlMs' in hints)) expect(body.ttlMs).toBeUndefined();
  });

  it('lists the same tools as the initialize-based revisions, in the same order', async () => {
    const modern = result(await post('tools/list')).tools as { name: string }[];
    const legacy = (await mcpPost(server.baseUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { ...auth, 'MCP-Protocol-Version': '2025-11-25' })).json<{
      result: { tools: { name: string }[] };
    }>().result.tools;
    expect(modern).toEqual(legacy);
    expect(modern.length).toBeGreaterThan(20);
  });

  it('calls a tool: the result closes with resultType and the server info, and a refusal stays an isError result', async () => {
    const ok = result(await post('tools/call', { name: 'list_lists', arguments: {} }));
    expect(ok).toMatchObject({ resultType: 'complete', _meta: SERVER_INFO, structuredContent: { total: expect.any(Number) } });
    expect(JSON.parse((ok.content as { text: string }[])[0]!.text)).toEqual(ok.structuredContent);
    const refused = result(await post('tools/call', { name: 'get_item', arguments: { id: '00000000-0000-4000-8000-000000000000' } }));
    expect(refused).toMatchObject({ isError: true, resultType: 'complete', content: [{ type: 'text', text: expect.stringContaining('(code: notFound)') }] });
  });

  it('reads an Mcp-Name that is not plain ASCII from its Base64 sentinel form', async () => {
    const message = modernMessage(3, 'prompts/get', { name: 'plan_my_day ☀' });
    const headers = modernHeaders(message);
    expect(headers['Mcp-Name']).toMatch(/^=\?base64\?.*\?=$/);
    const res = await modernPost(server.baseUrl, message, auth);
    // The header matched: the refusal is the prompt's own, not a header mismatch.
    expect(error(res).error.code).toBe(-32602);
    expect(error(res).error.message).toContain('Unknown prompt');
  });

  describe('refusals', () => {
    it('refuses an unknown protocol version with -32022, 400, naming every supported version', async () => {
      const message = {
        ...modernMessage(5, 'tools/list'),
        params: { _meta: { ...modernMessage(5, 'tools/list').params._meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      };
      const res = await mcpPost(server.baseUrl, message, {
        ...auth,
        'Content-Type': 'application/json',
        'MCP-Protocol-Version': '2099-01-01',
        'Mcp-Method': 'tools/list',
      });
      expect(res.status).toBe(400);
      expect(error(res)).toMatchObject({ id: 5, error: { code: -32022, data: { supported: [MODERN_VERSION, ...LEGACY], requested: '2099-01-01' } } });
    });

    it('refuses an envelope version unlike the header as a header mismatch (-32020), whatever the version', async () => {
      const message = {
        ...modernMessage(8, 'server/discover'),
        params: { _meta: { ...modernMessage(8, 'x').params._meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      };
      const res = await mcpPost(server.baseUrl, message, {
        ...auth,
        'Content-Type': 'application/json',
        'MCP-Protocol-Version': MODERN_VERSION,
        'Mcp-Method': 'server/discover',
      });
      expect(res.status).toBe(400);
      expect(error(res).error.code).toBe(-32020);
    });

    it('refuses a request that names 2026-07-28 in its header but carries no envelope with -32602, 400', async () => {
      const res = await mcpPost(
        server.baseUrl,
        { jsonrpc: '2.0', id: 6, method: 'tools/list' },
        { ...auth, 'MCP-Protocol-Version': MODERN_VERSION, 'Mcp-Method': 'tools/list' },
      );
      expect(res.status).toBe(400);
      expect(error(res)).toMatchObject({ id: 6, error: { code: -32602, message: expect.stringContaining('clientCapabilities') } });
    });

    it.each([
      ['MCP-Protocol-Version missing', { 'MCP-Protocol-Version': '' }, 'MCP-Protocol-Version header is missing'],
      ['Mcp-Method missing', { 'Mcp-Method': '' }, 'Mcp-Method header is missing'],
      ['Mcp-Method unlike the body', { 'Mcp-Method': 'tools/list' }, "Mcp-Method 'tools/list' does not match"],
      ['Mcp-Name missing', { 'Mcp-Name': '' }, 'Mcp-Name header is missing'],
      ['Mcp-Name unlike the body', { 'Mcp-Name': 'delete_list' }, "Mcp-Name 'delete_list' does not match params.name"],
      ['MCP-Protocol-Version unlike the envelope', { 'MCP-Protocol-Version': '2025-11-25' }, "MCP-Protocol-Version '2025-11-25' does not match"],
    ])('refuses a tools/call with %s: -32020 HeaderMismatch, 400', async (_case, headers, message) => {
      const sent: Record<string, string> = { ...modernHeaders(modernMessage(7, 'tools/call', { name: 'list_lists' })), ...headers };
      for (const [k, v] of Object.entries(sent)) if (v === '') delete sent[k];
      const res = await mcpPost(server.baseUrl, modernMessage(7, 'tools/call', { name: 'list_lists' }), {
        ...auth,
        'Content-Type': 'application/json',
        ...sent,
      });
      expect(res.status).toBe(400);
      expect(error(res)).toMatchObject({ id: 7, error: { code: -32020, message: expect.stringContaining(message) } });
    });

    it('answers an unknown method with 404 and -32601', async () => {
      const res = await post('sampling/createMessage');
      expect(res.status).toBe(404);
      expect(error(res).error.code).toBe(-32601);
    });

    it('answers an initialize-era method the revision removed (ping) with 404 and -32601', async () => {
      expect((await post('ping')).status).toBe(404);
    });

    it('refuses params that do not fit the method with -32602', async () => {
      const res = await post('completion/complete', { argument: { name: 'list', value: 'T' } });
      expect(res.status).toBe(200);
      expect(error(res).error).toMatchObject({ code: -32602, message: expect.stringContaining('ref') });
    });

    it('reports a resource that does not exist as -32602, not the older -32002', async () => {
      const uri = 'listkeeper://lists/00000000-0000-4000-8000-000000000000';
      const res = await post('resources/read', { uri });
      expect(error(res).error).toMatchObject({ code: -32602, data: { uri } });
    });

    it('takes a notification with 202 and no body', async () => {
      const { id: _id, ...notification } = modernMessage(0, 'notifications/cancelled', { requestId: 1 });
      const res = await modernPost(server.baseUrl, notification, auth);
      expect(res.status).toBe(202);
      expect(res.text).toBe('');
    });

    it('still asks for a token first', async () => {
      const res = await post('tools/list', {}, { Authorization: '' });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain('resource_metadata=');
    });
  });

  it('serves the initialize-based revisions beside it, unchanged', async () => {
    const init = await mcpPost(
      server.baseUrl,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
      auth,
    );
    const body = init.json<{ result: Record<string, unknown> }>().result;
    expect(body.protocolVersion).toBe('2025-06-18');
    expect(body.resultType).toBeUndefined();
    expect(body.capabilities).toEqual(expect.objectContaining({ experimental: { events: { listChanged: false, delivery: ['webhook'] } } }));
  });
});
