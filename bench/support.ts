/**
 * What several benchmarks need: a database of their own on the shared embedded Postgres
 * (.tmp/bench-pg, or DATABASE_URL), dropped afterwards, and a free port.
 */
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
