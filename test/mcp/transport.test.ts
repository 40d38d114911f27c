/**
 * The /mcp transport: protocol version negotiation, the MCP-Protocol-Version header, the
 * stateless choice (POST only, no sessions, any process answers), and the Host/Origin
 * allow-lists against DNS rebinding, for a request of an initialize-based revision and one of
 * 2026-07-28 alike.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { useTestServer } from '../support/server.js';
import { initializeMessage, mcpPost, mcpPost as postMcp, modernHeaders, modernMessage, rawRequest } from '../support/http.js';

const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
const legacyList = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const modernList = modernMessage(2, 'tools/list');
/** tools/list as each era sends it: the message and the headers beside it. */
const FORMS: [string, object, Record<string, string>][] = [
  ['2025-11-25', legacyList, {}],
  ['2026-07-28', modernList, { 'Content-Type': 'application/json', ...modernHeaders(modernList) }],
];
const toolsList = legacyList;

describe('MCP transport', () => {
  const { server, ada } = useTestServer({
    env: {
      BASE_URL: 'https://lists.example.org',
      MCP_ALLOWED_HOSTS: 'mcp.internal, pinned.internal:8443',
      MCP_ALLOWED_ORIGINS: 'https://app.example.net',
    },
  });
  let auth: Record<string, string>;
  beforeAll(async () => {
    auth = { Authorization: `Bearer ${ada.key}` };
  });

  describe('protocol versions', () => {
    it.each(VERSIONS)('negotiates %s, then serves requests that carry it in MCP-Protocol-Version', async (version) => {
      const init = await mcpPost(server.baseUrl, initializeMessage(version), auth);
      expect(init.status).toBe(200);
      const body = init.json<{ result: { protocolVersion: string; serverInfo: { name: string }; capabilities: { tools?: object } } }>();
      expect(body.result.protocolVersion).toBe(version);
      expect(body.result.serverInfo.name).toBe('listkeeper');
      expect(body.result.capabilities.tools).toBeDefined();
      const list = await mcpPost(server.baseUrl, toolsList, { ...auth, 'MCP-Protocol-Version': version });
      expect(list.status).toBe(200);
      expect(list.json<{ result: { tools: unknown[] } }>().result.tools.length).toBeGreaterThan(0);
    });

    it('answers an unknown version in initialize with its latest one', async () => {
      const init = await mcpPost(server.baseUrl, initializeMessage('2023-01-01'), auth);
      expect(init.status).toBe(200);
      expect(init.json<{ result: { protocolVersion: string } }>().result.protocolVersion).toBe(VERSIONS[0]);
    });

    it.each(['2023-01-01', 'latest', '2025-11-25x'])('answers 400 to MCP-Protocol-Version %s, naming the supported versions', async (header) => {
      const res = await mcpPost(server.baseUrl, toolsList, { ...auth, 'MCP-Protocol-Version': header });
      expect(res.status).toBe(400);
      const body = res.json<{ error: { message: string } }>();
      expect(body.error.message).toContain(header);
      for (const v of VERSIONS) expect(body.error.message).toContain(v);
    });
  });

  describe('stateless Streamable HTTP', () => {
    it('gives no Mcp-Session-Id and answers plain JSON', async () => {
      const init = await mcpPost(server.baseUrl, initializeMessage(VERSIONS[0]!), auth);
      expect(init.headers['mcp-session-id']).toBeUndefined();
      expect(init.headers['content-type']).toMatch(/^application\/json/);
    });

    it.each([
      ['GET', { Accept: 'text/event-stream' }],
      ['DELETE', { 'Mcp-Session-Id': 'anything' }],
      ['PUT', {}],
    ])('answers %s with 405 and Allow: POST', async (method, headers) => {
      const res = await rawRequest(`${server.baseUrl}/mcp`, { method, headers: { ...auth, ...headers } });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST, OPTIONS');
      expect(res.json()).toMatchObject({ code: 'methodNotAllowed', error: expect.stringContaining('stateless') });
    });

    it('lets one process initialize and another answer the next call (no session state)', async () => {
      const second = createApp({ db: server.db, config: server.config, services: server.services, log: pino({ level: 'silent' }), validateResponses: true });
      const other: Server = second.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => other.once('listening', resolve));
      try {
        const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
        expect((await mcpPost(server.baseUrl, initializeMessage(VERSIONS[0]!), auth)).status).toBe(200);
        const call = await mcpPost(
          otherUrl,
          { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_lists', arguments: {} } },
          { ...auth, 'MCP-Protocol-Version': VERSIONS[0]! },
        );
        expect(call.status).toBe(200);
        const result = call.json<{ result: { isError?: boolean; structuredContent: { total: number } } }>().result;
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent.total).toBe(3);
      } finally {
        other.closeAllConnections();
        await new Promise<void>((resolve) => other.close(() => resolve()));
      }
    });

    it.each(FORMS)('answers a %s call without a token with 401 and WWW-Authenticate', async (_revision, message, headers) => {
      const res = await mcpPost(server.baseUrl, message, headers);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toContain('/.well-known/oauth-protected-resource');
    });

    it('answers a 2026-07-28 call from any process with no handshake anywhere', async () => {
      const second = createApp({ db: server.db, config: server.config, services: server.services, log: pino({ level: 'silent' }), validateResponses: true });
      const other: Server = second.listen(0, '127.0.0.1');
      await new Promise<void>((resolve) => other.once('listening', resolve));
      try {
        const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
        const message = modernMessage(3, 'tools/call', { name: 'list_lists', arguments: {} });
        const call = await mcpPost(otherUrl, message, { ...auth, 'Content-Type': 'application/json', ...modernHeaders(message) });
        expect(call.status).toBe(200);
        expect(call.json<{ result: { resultType: string; structuredContent: { total: number } } }>().result).toMatchObject({
          resultType: 'complete',
          structuredContent: { total: 3 },
        });
      } finally {
        other.closeAllConnections();
        await new Promise<void>((resolve) => other.close(() => resolve()));
      }
    });
  });

  describe.each(FORMS)('DNS rebinding protection (%s)', (_revision, toolsList, eraHeaders) => {
    const mcpPost = (baseUrl: string, message: unknown, headers: Record<string, string> = {}) => postMcp(baseUrl, message, { ...eraHeaders, ...headers });
    it.each([
      ['a loopback name on any port', 'localhost:9'],
      ['127.0.0.1', '127.0.0.1'],
      ['[::1]', '[::1]:1234'],
      ["BASE_URL's host", 'lists.example.org'],
      ['an MCP_ALLOWED_HOSTS name on any port', 'MCP.internal:3000'],
      ['an MCP_ALLOWED_HOSTS host:port', 'pinned.internal:8443'],
    ])('serves Host %s', async (_case, host) => {
      const res = await mcpPost(server.baseUrl, toolsList, { ...auth, Host: host });
      expect(res.status).toBe(200);
    });

    it.each([
      ['a foreign name', 'evil.example.com'],
      ['a foreign name on a loopback port', 'evil.example.com:' + '8080'],
      ['a name that only starts like an allowed one', 'lists.example.org.evil.com'],
      ['an MCP_ALLOWED_HOSTS host on another port', 'pinned.internal:8444'],
      ['a malformed value', 'a b'],
    ])('refuses Host %s with 403 before authentication', async (_case, host) => {
      const res = await mcpPost(server.baseUrl, toolsList, { Host: host });
      expect(res.status).toBe(403);
      expect(res.json<{ error: string }>().error).toMatch(/MCP_ALLOWED_HOSTS/);
    });

    it.each([
      ['a foreign origin', 'https://evil.example'],
      ['a foreign origin on a loopback-looking name', 'http://localhost.evil.example'],
      ['the opaque origin', 'null'],
    ])('refuses Origin %s with 403 before authentication', async (_case, origin) => {
      const res = await mcpPost(server.baseUrl, toolsList, { Origin: origin });
      expect(res.status).toBe(403);
      expect(res.json<{ error: string }>().error).toMatch(/MCP_ALLOWED_ORIGINS/);
    });

    it.each([
      ["BASE_URL's origin", 'https://lists.example.org'],
      ['an MCP_ALLOWED_ORIGINS origin', 'https://app.example.net'],
      ['a loopback origin', 'http://127.0.0.1:6274'],
    ])('serves Origin %s, with CORS headers', async (_case, origin) => {
      const res = await mcpPost(server.baseUrl, toolsList, { ...auth, Origin: origin });
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
    });

    it('answers a CORS preflight from an allowed origin without a token', async () => {
      const res = await rawRequest(`${server.baseUrl}/mcp`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://app.example.net',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, mcp-protocol-version',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://app.example.net');
      expect(res.headers['access-control-allow-methods']).toBe('POST');
      expect(res.headers['access-control-allow-headers']).toMatch(/Authorization.*Mcp-Protocol-Version.*Mcp-Method, Mcp-Name/);
    });

    it('refuses a CORS preflight from a foreign origin', async () => {
      const res = await rawRequest(`${server.baseUrl}/mcp`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
      });
      expect(res.status).toBe(403);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
