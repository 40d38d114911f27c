/**
 * Test servers on a machine where the person also runs listkeeper: the shell that starts jest
 * has BASE_URL, PORT, LISTKEEPER_DATA_DIR, DATABASE_URL and the command line's address set for
 * that other service. A test server, in process or spawned, must take none of them.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { expectSampleRestored, writeSample } from './backup-sample.js';
import { startServiceProcess, type ServiceProcess } from './cluster.js';
import { createTestDatabase, type TestDatabase } from './db.js';
import { childEnv } from './env.js';
import { startTestServer } from './server.js';

describe('test servers under a shell set up for another listkeeper', () => {
  let theirs: Server;
  const theirsHits: string[] = [];
  let dir: string;
  let theirData: string;
  let hostile: Record<string, string>;
  const saved: Record<string, string | undefined> = {};
  let database: TestDatabase | undefined;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    // The person's own service: it refuses whatever a test sends it, as a real one refuses an upload signed by another.
    theirs = createServer((req, res) => {
      theirsHits.push(`${req.method} ${req.url}`);
      res.writeHead(403).end();
    });
    theirs.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => theirs.once('listening', resolve));
    const port = (theirs.address() as AddressInfo).port;
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-hostile-'));
    theirData = path.join(dir, 'their-data');
    hostile = {
      BASE_URL: `http://127.0.0.1:${port}`,
      PORT: String(port),
      LISTKEEPER_DATA_DIR: theirData,
      DATABASE_URL: 'postgres://nobody@127.0.0.1:9/theirs',
      LISTKEEPER_URL: `http://127.0.0.1:${port}`,
      LISTKEEPER_KEY: 'lk_theirs',
    };
    for (const [name, value] of Object.entries(hostile)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await service?.stop('SIGTERM');
    await database?.drop();
    theirs.closeAllConnections();
    await new Promise<void>((resolve) => theirs.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('gives a child process none of the settings, only the ones the test names', () => {
    const env = childEnv({ PORT: '1234' });
    const { PORT: _named, ...others } = hostile;
    for (const name of Object.keys(others)) expect(env[name]).toBeUndefined();
    expect(env.PORT).toBe('1234');
    expect(env.PATH).toBe(process.env.PATH);
  });

  it('runs a service process that uploads, stores and serves files as itself', async () => {
    database = await createTestDatabase();
    const files = path.join(dir, 'files');
    service = await startServiceProcess('hostile', { DATABASE_URL: database.url, LISTKEEPER_DATA_DIR: files, EMBEDDINGS: 'none' });
    const user = await createUser(database.knex, { email: 'ada@example.com', name: 'Ada', timezone: 'Europe/London' });
    const key = await createApiKey(database.knex, user.id);
    const meta = (await (await fetch(`${service.url}/.well-known/oauth-protected-resource`)).json()) as { resource: string };
    expect(meta.resource).toBe(service.url);
    // The upload PUT goes to the address the service signs: its own, not BASE_URL's.
    const sample = await writeSample(service.url, key);
    await expectSampleRestored(service.url, key, sample);
    expect(theirsHits).toEqual([]);
    expect(await readdir(files)).not.toEqual([]);
    await expect(readdir(theirData)).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it('runs an in-process server on its own address and folder', async () => {
    const server = await startTestServer();
    try {
      expect(server.config.baseUrl).toBe(server.baseUrl);
      expect(server.config.dataDir.startsWith(os.tmpdir())).toBe(true);
      expect(server.config.databaseUrl).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
