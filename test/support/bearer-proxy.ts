/**
 * A pass-through HTTP proxy that adds `Authorization: Bearer <token>` to every request, for
 * test tools that cannot send a header of their own (the MCP conformance suite has no auth
 * option). Everything else goes through verbatim — method, path, body and, on purpose, the
 * Host and Origin headers — so the server's own Host/Origin checks still see what the tool
 * sent. It never bypasses authentication: it holds a real API key.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** Base URL of the proxy, e.g. `http://127.0.0.1:41234`. */
  url: string;
  close(): Promise<void>;
}

/** Starts a proxy on a random loopback port in front of `target` (a base URL). */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const upstream = new URL(target);
  const server = http.createServer(function forward(req, res) {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const outgoing = http.request(
      { hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, setHost: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outgoing.on('error', (err) => {
      res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`bearer proxy: ${err.message}`);
    });
    req.pipe(outgoing);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
