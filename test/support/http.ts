/**
 * A bare HTTP request for tests that must control every header, Host included (fetch does
 * not let a caller set Host).
 */
import http from 'node:http';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json<T = unknown>(): T;
}

export function rawRequest(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<RawResponse> {
  const target = new URL(url);
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? 'GET',
        headers: { ...(body !== undefined ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}), ...init.headers },
        setHost: !Object.keys(init.headers ?? {}).some((h) => h.toLowerCase() === 'host'),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: <T>() => JSON.parse(text) as T });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** JSON-RPC over one POST to /mcp, with the headers a Streamable HTTP client sends. */
export function mcpPost(baseUrl: string, message: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { Accept: 'application/json, text/event-stream', ...headers },
    body: message,
  });
}

export const initializeMessage = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'listkeeper-tests', version: '1.0.0' } },
});

/** The 2026-07-28 revision's per-request envelope (`params._meta`). */
export const MODERN_VERSION = '2026-07-28';
export function modernMeta(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'listkeeper-tests', version: '1.0.0' },
  };
}

/** A 2026-07-28 request as a client of that revision sends it: the envelope in `_meta`. */
export function modernMessage(id: number | string, method: string, params: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}) {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta(capabilities) } };
}

/** The standard headers a 2026-07-28 client mirrors from a message: MCP-Protocol-Version, Mcp-Method, Mcp-Name. */
export function modernHeaders(message: { method: string; params?: Record<string, unknown> }): Record<string, string> {
  const p = message.params ?? {};
  const name = message.method === 'resources/read' ? p.uri : message.method.startsWith('tasks/') ? p.taskId : p.name;
  const headers: Record<string, string> = { 'MCP-Protocol-Version': MODERN_VERSION, 'Mcp-Method': message.method };
  if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read', 'tasks/get', 'tasks/update', 'tasks/cancel'].includes(message.method)) {
    headers['Mcp-Name'] = /^[\x20-\x7e]*$/.test(name) && !/^\s|\s$/.test(name) ? name : `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  }
  return headers;
}

/** POSTs a 2026-07-28 message with its standard headers (and any others). */
export function modernPost(
  baseUrl: string,
  message: { method: string; params?: Record<string, unknown> },
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return mcpPost(baseUrl, message, { 'Content-Type': 'application/json', ...modernHeaders(message), ...headers });
}
