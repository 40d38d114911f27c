/**
 * A test HTTPS origin on 127.0.0.1, for what the service must fetch over https (a Client ID
 * Metadata Document): a self-signed certificate made with openssl for this run, which this
 * test process trusts (added to Node's default CA certificates until `close`). The service
 * reaches 127.0.0.1 only with OUTBOUND_ALLOW_PRIVATE, which the suites using it set.
 * Each path answers what `serve` last set; `hits` counts the requests to each path.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

/** Node 22.19's CA functions, newer than the installed type definitions. */
const caStore = tls as typeof tls & { getCACertificates(type: 'default'): string[]; setDefaultCACertificates(certs: string[]): void };

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

export interface HttpsOrigin {
  /** e.g. https://127.0.0.1:43123 */
  origin: string;
  serve(pathname: string, answer: Answer | ((hits: number) => Answer)): void;
  hits(pathname: string): number;
  close(): Promise<void>;
}

/** Starts the origin; the certificate names 127.0.0.1 and localhost. */
export async function startHttpsOrigin(): Promise<HttpsOrigin> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lk-https-origin-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=listkeeper test origin',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  const key = readFileSync(keyFile, 'utf8');
  const cert = readFileSync(certFile, 'utf8');
  rmSync(dir, { recursive: true, force: true });
  const trusted = caStore.getCACertificates('default');
  caStore.setDefaultCACertificates([...trusted, cert]);

  const routes = new Map<string, Answer | ((hits: number) => Answer)>();
  const counts = new Map<string, number>();
  const server = https.createServer({ key, cert }, (req, res) => {
    const pathname = new URL(req.url ?? '/', 'https://127.0.0.1').pathname;
    const hits = (counts.get(pathname) ?? 0) + 1;
    counts.set(pathname, hits);
    const route = routes.get(pathname);
    const answer = typeof route === 'function' ? route(hits) : (route ?? { status: 404, body: 'not found' });
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve: (pathname, answer) => routes.set(pathname, answer),
    hits: (pathname) => counts.get(pathname) ?? 0,
    async close() {
      caStore.setDefaultCACertificates(trusted);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
