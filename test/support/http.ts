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
