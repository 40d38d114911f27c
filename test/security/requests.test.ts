/**
 * Security regressions on what a request may carry: JSON-RPC batches at /mcp, invalid UTF-8,
 * JSON nested deep enough to overflow a renderer, an undecodable attachment reference in a
 * body, a forged X-Forwarded-For, and refusals that would name an internal address.
 */
import { describe, it, expect } from '@jest/globals';
import http from 'node:http';
import { useTestServer } from '../support/server.js';
import { initializeMessage, mcpPost } from '../support/http.js';
import { checkCallbackUrl, isPublicAddress } from '../../src/core/outbound.js';
import { shown } from '../../src/core/errors.js';

/** Sends raw bytes as a JSON body. */
function postBytes(url: string, bytes: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': String(bytes.length), ...headers } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

describe('request security', () => {
  const { server, ada } = useTestServer();
  const auth = () => ({ Authorization: `Bearer ${ada.key}` });

  it('refuses a JSON-RPC batch at /mcp, so 100 tool calls cannot pass as one request', async () => {
    await mcpPost(server.baseUrl, initializeMessage('2025-11-25'), auth());
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_lists', arguments: {} } });
    const res = await mcpPost(
      server.baseUrl,
      Array.from({ length: 100 }, (_, i) => call(i + 1)),
      { ...auth(), 'MCP-Protocol-Version': '2025-11-25' },
    );
    expect(res.status).toBe(400);
    expect(res.json<{ error: { code: number; message: string } }>().error).toMatchObject({ code: -32600, message: expect.stringContaining('batches') });
  });

  it('refuses invalid UTF-8 with 400 instead of storing U+FFFD', async () => {
    const bytes = Buffer.concat([Buffer.from('{"items": [{"title": "bad '), Buffer.from([0xc3, 0x28]), Buffer.from('"}]}')]);
    const res = await postBytes(`${server.baseUrl}/api/v1/items`, bytes, auth());
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ code: 'invalid', error: expect.stringContaining('UTF-8') });
  });

  it('refuses JSON nested 100,000 deep with 400, and the error renderer survives such a value', async () => {
    const deep = `${'['.repeat(100000)}${']'.repeat(100000)}`;
    const res = await postBytes(`${server.baseUrl}/api/v1/items`, Buffer.from(`{"items": [{"title": "x", "values": ${deep}}]}`), auth());
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatch(/nests arrays and objects \d+ deep; at most 64/);
    let value: unknown[] = [];
    for (let i = 0; i < 100000; i++) value = [value];
    expect(shown(value)).toBe('[a deeply nested array]');
  });

  it('skips an undecodable attachment reference in a body instead of answering 500', async () => {
    const made = await ada.sdk.POST('/items', {
      body: { listId: 'notes', items: [{ title: 'planted', body: '![x](listkeeper-attachment://attachment/%E0%A4%A)' }] },
    });
    const id = made.data!.items[0]!.id;
    const rest = await ada.sdk.GET('/items/{id}', { params: { path: { id } } });
    expect(rest.response.status).toBe(200);
    const client = await server.mcp(ada);
    const tool = (await client.callTool({ name: 'get_item', arguments: { id } })) as { isError?: boolean };
    await client.close();
    expect(tool.isError).toBeUndefined();
  });

  it('names no resolved address when it refuses an internal host', async () => {
    await expect(checkCallbackUrl('https://localhost/hooks', false)).rejects.toThrow(/not allowed/);
    await checkCallbackUrl('https://localhost/hooks', false).catch((err: Error) => expect(err.message).not.toMatch(/127\.0\.0\.1|::1/));
  });

  it.each(['::ffff:0:7f00:1', '::ffff:0:a00:1', '::ffff:127.0.0.1', '64:ff9b::7f00:1'])('treats %s (IPv4 inside IPv6) as not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('behind a proxy', () => {
  const { server, ada } = useTestServer({ env: { TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '1', RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '3' } });

  it('counts the address the proxy saw, not a forged leftmost X-Forwarded-For entry', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      // The client forges a new leftmost entry every time; the proxy appends the address it saw.
      const res = await fetch(`${server.baseUrl}/api/v1/lists`, {
        headers: { Authorization: `Bearer ${ada.key}`, 'X-Forwarded-For': `10.9.8.${i}, 203.0.113.7` },
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
