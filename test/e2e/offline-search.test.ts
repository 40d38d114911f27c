/**
 * The default search setup (embedded Postgres, the local bge-small model from models/) indexes and finds by meaning
 * with the network cut: the built service runs in a network namespace of its own (`unshare --net`) with only
 * loopback up. `mvn`, the one client the project fetches a model with (tools/fetch-models.mjs), is replaced on the
 * PATH by a script that records any call, so a download attempt at run time would show even if it failed quietly.
 */
import { describe, expect, it, beforeAll, afterAll } from '@jest/globals';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from '../support/env.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname ?? '.', '../..');
const driver = path.join(root, 'test/e2e/offline-search-driver.mjs');

/** Why a network namespace cannot be had here, or null when it can (root, or a kernel allowing it). */
function namespaceRefused(): string | null {
  const probe = spawnSync('unshare', ['--net', '--', 'ip', 'link', 'set', 'lo', 'up'], { encoding: 'utf8' });
  if (probe.error) return `unshare or ip could not be run (${probe.error.message})`;
  return probe.status === 0 ? null : `unshare --net was refused here: ${probe.stderr.trim()}`;
}

const refused = namespaceRefused();
if (refused) console.warn(`offline-search.test.ts skipped: ${refused}`);
const maybe = refused ? it.skip : it;

describe(refused ? `search with the network cut (skipped: ${refused})` : 'search with the network cut', () => {
  let dataDir: string;
  let tripwire: string;

  beforeAll(async () => {
    if (!existsSync(path.join(root, 'dist/src/main.js'))) throw new Error('dist/ is missing: run `make build` (make test does) before this suite.');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'lk-e2e-offline-'));
    await chmod(dataDir, 0o755);
    await writeFile(path.join(dataDir, 'mvn'), `#!/bin/sh\necho "mvn $*" >> "${path.join(dataDir, 'mvn-calls')}"\nexit 1\n`, { mode: 0o755 });
    tripwire = path.join(dataDir, 'mvn-calls');
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  maybe(
    'indexes two notes and finds one by meaning, loading the model from models/ and attempting no download',
    async () => {
      const env = childEnv({
        LISTKEEPER_DATA_DIR: dataDir,
        DATABASE_URL: undefined,
        PORT: '3000',
        HOST: '127.0.0.1',
        BASE_URL: 'http://127.0.0.1:3000',
        SEARCH_BACKEND: 'postgres',
        EMBEDDINGS: 'local',
        EMBEDDINGS_URL: undefined,
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        RATE_LIMIT_PER_MINUTE: '100000',
        PATH: `${dataDir}:${process.env.PATH ?? ''}`,
      });
      const { stdout } = await run('unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', process.execPath, driver], {
        env,
        maxBuffer: 16 * 1024 * 1024,
      });
      const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as { unreachable: string; embedder: string; indexed: string; titles: string[] };
      expect(result.unreachable).toBe('ENETUNREACH');
      expect(result.embedder).toBe('local:bge-small-en-v1.5');
      expect(result.indexed).toBe('Indexed 2 items.');
      expect(result.titles).toEqual(['Vehicle policy renewal']);
      expect(existsSync(tripwire) ? await readFile(tripwire, 'utf8') : '').toBe('');
    },
    180_000,
  );
});
