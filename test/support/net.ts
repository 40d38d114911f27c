import http from 'node:http';
import net from 'node:net';

/**
 * The setting that lets the service call the servers the tests start on 127.0.0.1 (webhook
 * receivers, image hosts, automation webhooks): it refuses private and loopback addresses, and
 * plain http, otherwise.
 */
export const REACH_LOCAL_SERVERS = { OUTBOUND_ALLOW_PRIVATE: 'true' } as const;

/** A TCP port on 127.0.0.1 that was free a moment ago (for servers the tests start as processes). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface LocalServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  server: http.Server;
  /** Ends open connections (a request held unanswered included) and stops listening. */
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 and a free port, answering with `handler` (a stand-in for a host the service calls). */
export async function startLocalServer(handler: http.RequestListener): Promise<LocalServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
