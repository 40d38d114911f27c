/**
 * The service as a person runs it: the built server on an embedded Postgres in its own data
 * folder, the listkeeper command beside it, restarts with data intact, a clean stop on
 * SIGTERM and recovery after SIGKILL.
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

describe('npm start and the listkeeper command', () => {
  let dataDir: string;
  let port: number;
  let env: NodeJS.ProcessEnv;
  let server: ChildProcess | null = null;
  beforeAll(async () => {
    if (!existsSync(main)) throw new Error('dist/ is missing: run `make build` (make test does) before this suite.');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'lk-e2e-'));
    await chmod(dataDir, 0o755);
    port = await freePort();
    env = childEnv({ LISTKEEPER_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    server?.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    server = spawn(process.execPath, [main], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    for (let i = 0; i < 150; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return;
      if (server.exitCode !== null) throw new Error(`server exited: ${stderr}`);
      await sleep(200);
    }
    throw new Error(`server not ready: ${stderr}`);
  };
  const stop = async (signal: NodeJS.Signals) => {
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
    server!.kill(signal);
    const code = await exited;
    server = null;
    return code;
  };

  it('serves on the embedded Postgres, with accounts and keys from the command', async () => {
    await start();
    await run(process.execPath, [cli, 'user', 'create', '--email', 'ada@example.com', '--name', 'Ada'], { env });
    const { stdout } = await run(process.execPath, [cli, 'apikey', 'create', '--email', 'ada@example.com'], { env });
    const key = stdout.trim();
    expect(key).toMatch(/^lk_[A-Za-z0-9]{45}$/);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/lists`, { headers: { Authorization: `Bearer ${key}` } });
    expect(((await res.json()) as { lists: { name: string }[] }).lists.map((l) => l.name)).toEqual(['Tasks', 'Notes', 'Life Admin']);
    env.LK_KEY = key;
  }, 120000);

  it('stops cleanly on SIGTERM and keeps its data across a restart', async () => {
    expect(await stop('SIGTERM')).toBe(0);
    await start();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/lists`, { headers: { Authorization: `Bearer ${env.LK_KEY}` } });
    expect(res.status).toBe(200);
  }, 120000);

  it('recovers after SIGKILL left a stale postmaster.pid behind', async () => {
    await stop('SIGKILL');
    // The embedded Postgres child may outlive its parent for a moment; the next start must cope.
    await sleep(500);
    await start();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/lists`, { headers: { Authorization: `Bearer ${env.LK_KEY}` } });
    expect(res.status).toBe(200);
    expect(await stop('SIGINT')).toBe(0);
  }, 120000);

  it('exits 0 on SIGINT while the search model is still loading', async () => {
    // The model loads in its worker thread after the server listens; shutdown waits for the load instead of tearing
    // the native model down in the middle of it (which aborted the process).
    await start();
    expect(await stop('SIGINT')).toBe(0);
  }, 120000);
});
