/**
 * Search as a person runs it: the built server on its embedded Postgres with the default search settings (Postgres
 * backend, local model, no network), indexing through its own outbox pump, and `listkeeper search reindex` beside it.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv } from '../support/env.js';
import { freePort } from '../support/net.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname ?? '.', '../..');
const main = path.join(root, 'dist/src/main.js');
const cli = path.join(root, 'bin/listkeeper.js');

describe('search in the running service', () => {
  let dataDir: string;
  let base: string;
  let env: NodeJS.ProcessEnv;
  let server: ChildProcess | null = null;
  let key: string;
  const api = (pathAndQuery: string, init: RequestInit = {}) =>
    fetch(`${base}/api/v1${pathAndQuery}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } });
  const searchTitles = async (q: string) => {
    const res = await api(`/search?q=${encodeURIComponent(q)}`);
    const body = (await res.json()) as { results: { title: string }[] };
    if (res.status !== 200) throw new Error(`GET /search answered ${res.status}: ${JSON.stringify(body)}`);
    return body.results.map((r) => r.title);
  };

  /** Starts the server and waits until it answers /readyz; returns its log so far and to come. */
  const start = async (serverEnv: NodeJS.ProcessEnv) => {
    server = spawn(process.execPath, [main], { env: serverEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { text: '' };
    server.stdout!.on('data', (d: Buffer) => (output.text += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (output.text += d.toString()));
    for (let i = 0; ; i++) {
      if (
        await fetch(`${base}/readyz`)
          .then((r) => r.ok)
          .catch(() => false)
      )
        break;
      if (server.exitCode !== null || i > 600) throw new Error(`server not ready: ${output.text}`);
      await sleep(100);
    }
    return output;
  };
  const stop = async () => {
    if (!server || server.exitCode !== null) return;
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  };

  beforeAll(async () => {
    if (!existsSync(main)) throw new Error('dist/ is missing: run `make build` (make test does) before this suite.');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'lk-e2e-search-'));
    await chmod(dataDir, 0o755);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = childEnv({ LISTKEEPER_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000' });
    await start(env);
    await run(process.execPath, [cli, 'user', 'create', '--email', 'ada@example.com', '--name', 'Ada'], { env });
    key = (await run(process.execPath, [cli, 'apikey', 'create', '--email', 'ada@example.com'], { env })).stdout.trim();
  }, 180_000);
  afterAll(async () => {
    await stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("finds a note by meaning shortly after it is saved, through the server's own outbox pump", async () => {
    const res = await api('/items', {
      method: 'POST',
      body: JSON.stringify({
        listId: 'notes',
        items: [
          { title: 'Vehicle policy renewal', body: 'Allianz renews on 3 March; premium 640 a year, compare quotes two weeks before.' },
          { title: 'Chocolate cake', body: 'Bake 35 minutes.' },
        ],
      }),
    });
    expect(res.status).toBe(201);
    let titles: string[] = [];
    // The pump polls every 250 ms; the first batch also waits for the model if its warm-up has not finished.
    for (let i = 0; i < 200 && titles.length === 0; i++) {
      titles = await searchTitles('car insurance');
      if (titles.length === 0) await sleep(250);
    }
    expect(titles).toEqual(['Vehicle policy renewal']);
  }, 60_000);

  it("rebuilds one account's index with listkeeper search reindex, showing progress on stderr", async () => {
    const { stdout, stderr } = await run(process.execPath, [cli, 'search', 'reindex', '--email', 'ada@example.com', '--batch-size', '1'], { env });
    expect(stdout).toBe('Indexed 2 items.\n');
    expect(stderr).toContain('Indexing into postgres with the local:bge-small-en-v1.5 embedder.');
    expect(stderr).toMatch(/^2\/2 items 100%/m);
    expect(await searchTitles('car insurance')).toEqual(['Vehicle policy renewal']);
  }, 120_000);

  it('rebuilds the index in the background after a restart with another embedder', async () => {
    await stop();
    const output = await start({ ...env, EMBEDDINGS: 'none', LOG_LEVEL: 'info' });
    for (let i = 0; i < 300 && !output.text.includes('search index rebuilt'); i++) await sleep(100);
    expect(output.text).toContain(
      'rebuilding the search index in the background: the index was built with postgres and the local:bge-small-en-v1.5 embedder (384 dimensions) and this process uses postgres and the none embedder',
    );
    expect(output.text).toContain('search index rebuilt');
    // Keyword search now: the words are found, the paraphrase is not.
    expect(await searchTitles('policy renewal')).toEqual(['Vehicle policy renewal']);
    expect(await searchTitles('car insurance')).toEqual([]);
  }, 120_000);
});
