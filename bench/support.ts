/**
 * What several benchmarks need: a database of their own on the shared embedded Postgres
 * (.tmp/bench-pg, or DATABASE_URL), dropped afterwards, a free port, and a server process.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import knexFactory, { type Knex } from 'knex';
import { startEmbeddedPostgres } from '../src/store/embedded/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A fresh database named `<prefix>_<time>`, its knex (at most `poolMax` connections) and URL; `close` drops it. */
export async function openBenchDatabase(prefix: string, poolMax: number): Promise<{ knex: Knex; url: string; close(): Promise<void> }> {
  const server = process.env.DATABASE_URL ? null : await startEmbeddedPostgres({ dataDir: path.join(root, '.tmp', 'bench-pg') });
  const adminUrl = process.env.DATABASE_URL ?? server!.url;
  const name = `${prefix}_${Date.now()}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl });
  await admin.raw(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const knex = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: poolMax } });
  return {
    knex,
    url: url.toString(),
    async close() {
      // Requests a load generator left in flight still run after their sockets close: let
      // them finish before the pool goes (destroying it under them logs acquire errors).
      const pool = knex.client.pool as { numUsed(): number; numPendingAcquires(): number };
      for (let waited = 0; waited < 10_000 && pool.numUsed() + pool.numPendingAcquires() > 0; waited += 50) await sleep(50);
      await knex.destroy();
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
      await server?.stop();
    },
  };
}

/** A port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A listkeeper server in a process of its own, started by a benchmark. */
export interface BenchServer {
  base: string;
  /** The process's CPU time so far (user and system), in ms. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Runs `node <args>` (the built dist/src/main.js, or a tree's sources through tsx) in `cwd` on
 * `databaseUrl` and a free port, keyword search only (no model loading or embedding in the
 * background of the measurements) and limits no benchmark reaches, once it answers /readyz.
 */
export async function startBenchServer(args: string[], databaseUrl: string, opts: { cwd?: string; label: string; readyMs: number }): Promise<BenchServer> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '100000000',
      EMBEDDINGS: 'none',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const ready = () =>
    fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
  for (let waited = 0; !(await ready()); waited += 50) {
    if (child.exitCode !== null) throw new Error(`${opts.label} exited with ${child.exitCode} before it was ready`);
    if (waited > opts.readyMs) throw new Error(`${opts.label} was not ready after ${opts.readyMs / 1000} s`);
    await sleep(50);
  }
  return {
    base,
    // utime and stime, fields 14 and 15 of /proc/<pid>/stat (after the command's parenthesis), in clock ticks of 10 ms.
    async cpuMs() {
      const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
