import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/store/embedded/index.js';
import { createTestDatabase } from '../support/db.js';

/** Port of a connection URL. */
function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** Runs fn with a client on url. */
async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** A pid that certainly belonged to a process and certainly is gone (already reaped). */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ['-e', '']).pid;
  if (!pid) throw new Error('could not spawn a throwaway process');
  return pid;
}

/** Occupies port on 127.0.0.1 until the returned function is called. */
async function occupy(port: number): Promise<() => Promise<void>> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1' }, resolve);
  });
  return () => new Promise((resolve) => server.close(() => resolve()));
}

// The cases share one cluster and run in order: each initdb costs seconds, restarts only a fraction of one.
describe('startEmbeddedPostgres', () => {
  let dataDir: string;
  const lines: string[] = [];
  const start = () => startEmbeddedPostgres({ dataDir, log: (line) => lines.push(line) });

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'listkeeper-embedded-'));
    // mkdtemp makes it 700, which the postgres user (used when we are root) could not enter.
    await fs.chmod(dataDir, 0o755);
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('initialises once, keeps data across restarts and moves off a busy remembered port', async () => {
    const first = await start();
    expect(lines).toContainEqual(expect.stringMatching(/^initdb/));
    await query(first.url, 'CREATE TABLE notes (body text)');
    await query(first.url, 'INSERT INTO notes VALUES ($1)', ['survives restarts']);
    const extensions = await query<{ extname: string }>(first.url, 'SELECT extname FROM pg_extension');
    expect(extensions.map((e) => e.extname)).toEqual(expect.arrayContaining(['pg_trgm', 'unaccent']));
    await first.stop();
    await first.stop();

    const release = await occupy(portOf(first.url));
    lines.length = 0;
    const second = await start().finally(release);
    expect(lines).not.toContainEqual(expect.stringMatching(/^initdb/));
    expect(portOf(second.url)).not.toBe(portOf(first.url));
    expect(await query(second.url, 'SELECT body FROM notes')).toEqual([{ body: 'survives restarts' }]);
    await second.stop();

    const third = await start();
    expect(portOf(third.url)).toBe(portOf(second.url));
    await third.stop();
  });

  it('removes a stale postmaster.pid, but refuses to start beside a live server on the same data', async () => {
    const pid = deadPid();
    await fs.writeFile(path.join(dataDir, 'pgdata', 'postmaster.pid'), `${pid}\n${dataDir}/pgdata\n`);
    lines.length = 0;
    const server = await start();
    expect(lines).toContainEqual(`removing stale postmaster.pid: pid ${pid} is no longer running`);

    await expect(start()).rejects.toThrow(/is already running on .*pgdata/);
    expect(await query(server.url, 'SELECT count(*)::int AS n FROM notes')).toEqual([{ n: 1 }]);
    await server.stop();
  });

  (process.getuid?.() === 0 ? it : it.skip)('names the folder the postgres user cannot enter (root only)', async () => {
    const privateDir = path.join(dataDir, 'private');
    await fs.mkdir(privateDir, { mode: 0o700 });
    await fs.chmod(privateDir, 0o700);
    await expect(startEmbeddedPostgres({ dataDir: path.join(privateDir, 'data') })).rejects.toThrow(`cannot enter ${privateDir} (mode 700, owner uid 0)`);
  });
});

describe('createTestDatabase', () => {
  it('gives every caller its own database, with the extensions already in place', async () => {
    const [a, b] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      expect(a.url).not.toBe(b.url);
      await a.knex.schema.createTable('items', (t) => {
        t.increments('id');
        t.text('title').notNullable();
      });
      await a.knex('items').insert({ title: 'only in a' });
      expect(await b.knex.schema.hasTable('items')).toBe(false);
      const [row] = await b.knex.raw<{ rows: { s: number }[] }>("SELECT similarity(unaccent('Crème'), 'creme') AS s").then((r) => r.rows);
      expect(row?.s).toBeGreaterThan(0.3);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
    await a.drop();
  });
});
