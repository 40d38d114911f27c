/**
 * Pieces of a cluster for tests, without docker: built listkeeper processes started as a
 * deployment starts them (`node dist/src/main.js` with settings in the environment), and a small
 * round-robin reverse proxy in front of them that, as a load balancer with health checks would,
 * sends a request whose connection a backend refused to the next backend.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv } from './env.js';
import { freePort } from './net.js';

const root = path.resolve(import.meta.dirname ?? '.', '../..');
const MAIN = path.join(root, 'dist/src/main.js');

export interface ServiceProcess {
  name: string;
  pid: number;
  port: number;
  url: string;
  /** Everything the process wrote to stderr and stdout (its logs). */
  output(): string;
  /** Sends the signal and waits for the exit; resolves with the exit code (null after SIGKILL). */
  stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<number | null>;
  running(): boolean;
}

/** Starts `node dist/src/main.js` on a free port with `env` (and no setting of the machine's, see env.ts), and waits for /readyz. */
export async function startServiceProcess(name: string, env: Record<string, string>, port?: number): Promise<ServiceProcess> {
  if (!existsSync(MAIN)) throw new Error('dist/ is missing: run `make build` (make test does) before this suite.');
  const listenPort = port ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: childEnv({ LOG_FORMAT: 'json', LOG_LEVEL: 'warn', ...env, PORT: String(listenPort), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${listenPort}`;
  for (let i = 0; ; i++) {
    const ready = await fetch(`${url}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ready) break;
    if (child.exitCode !== null || i > 600) throw new Error(`${name} did not start (exit ${child.exitCode}):\n${output}`);
    await sleep(100);
  }
  return {
    name,
    pid: child.pid!,
    port: listenPort,
    url,
    output: () => output,
    running: () => child.exitCode === null && child.signalCode === null,
    async stop(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

export interface RoundRobinProxy {
  url: string;
  /** Requests each backend answered, by its address. */
  answeredBy: Map<string, number>;
  /** Requests that reached no backend (every one refused the connection, for longer than the wait). */
  unreachable: number;
  close(): Promise<void>;
}

/**
 * A round-robin reverse proxy on 127.0.0.1 over the addresses `backends()` gives at each request.
 * It opens a new connection for every request (no keep-alive to a backend that is shutting
 * down), adds X-Forwarded-For, and when a backend refuses the connection (nothing was sent, so
 * nothing can have happened) tries the next, for up to `waitMs` when all of them refuse. A
 * connection reset before any answer is retried the same way: it is a connection that sat in
 * the accept queue of a listener closing for shutdown (the service answers every request it
 * accepted before it stops), which a load balancer retries as a connection failure.
 */
export async function startRoundRobinProxy(backends: () => string[], waitMs = 10_000): Promise<RoundRobinProxy> {
  let turn = 0;
  const proxy: RoundRobinProxy = { url: '', answeredBy: new Map(), unreachable: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const started = Date.now();
      for (let attempt = 0; ; attempt++) {
        const targets = backends();
        const target = targets[(turn++ + attempt) % targets.length]!;
        const outcome = await forward(target, req, body, res);
        if (outcome === 'answered') {
          proxy.answeredBy.set(target, (proxy.answeredBy.get(target) ?? 0) + 1);
          return;
        }
        if (Date.now() - started > waitMs) {
          proxy.unreachable++;
          res.writeHead(502).end('no backend answered');
          return;
        }
        if (attempt % targets.length === targets.length - 1) await sleep(50);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

/** Sends one request to `target` and pipes its answer back; 'refused' when the connection was refused. */
function forward(target: string, req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Promise<'answered' | 'refused'> {
  const { hostname, port } = new URL(target);
  return new Promise((resolve) => {
    const upstream = http.request(
      {
        host: hostname,
        port,
        method: req.method,
        path: req.url,
        agent: false,
        headers: { ...req.headers, host: req.headers.host ?? `${hostname}:${port}`, connection: 'close', 'x-forwarded-for': '127.0.0.1' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('end', () => resolve('answered'));
        answer.on('error', () => resolve('answered'));
      },
    );
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || (err.code === 'ECONNRESET' && !res.headersSent)) resolve('refused');
      else {
        if (!res.headersSent) res.writeHead(502).end(`proxy: ${err.code ?? err.message}`);
        resolve('answered');
      }
    });
    upstream.end(body);
  });
}
