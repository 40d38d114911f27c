/**
 * The processes `bench/agents.ts` loads: listkeeper (the built server, dist/) and the ceiling
 * (bench/ceiling.ts), each on 127.0.0.1, and the database's own processes for its CPU time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMsOf } from './load.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Running {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    if (waited > 60_000) throw new Error(`${url} not ready after 60 s`);
    await sleep(50);
  }
}

function running(child: ChildProcess, port: number): Running {
  return {
    port,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * A listkeeper process on `port`. Every process of a run shares one BASE_URL (the first
 * process's address, as behind a proxy) so each verifies the OAuth tokens the first issued.
 * The per-token limit stays the default (60 a minute); only the per-address one is raised,
 * since every simulated agent comes from 127.0.0.1. `dist` is another build to run (a baseline
 * to compare a change with), by default dist/.
 */
export async function startListkeeper(opts: { databaseUrl: string; port: number; baseUrl: string; profileDir?: string; dist?: string }): Promise<Running> {
  const flags = opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : [];
  const child = spawn(process.execPath, [...flags, path.join(opts.dist ?? path.join(root, 'dist'), 'src', 'main.js')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: opts.databaseUrl,
      PORT: String(opts.port),
      BASE_URL: opts.baseUrl,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '60',
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '100000000',
      CLIENT_REGISTRATIONS_PER_DAY: '100000',
      ALLOW_SIGN_UP: 'false',
      EMBEDDINGS: 'none',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitReady(`http://127.0.0.1:${opts.port}/readyz`, child);
  return running(child, opts.port);
}

/** The bare koa + pg ceiling on `port`. */
export async function startCeiling(databaseUrl: string, port: number): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'ceiling.ts')], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitReady(`http://127.0.0.1:${port}/items/00000000-0000-4000-8000-000000000000`, child);
  return running(child, port);
}

/** CPU time (ms) of every process under the postmaster of `dataDir`, by pid. */
export async function databaseCpu(dataDir: string): Promise<Map<number, number>> {
  const postmaster = Number((await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  const out = new Map<number, number>();
  if (!postmaster) return out;
  for (const name of await readdir('/proc')) {
    const pid = Number(name);
    if (!pid) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (pid === postmaster || ppid === postmaster) out.set(pid, await cpuMsOf(pid).catch(() => 0));
  }
  return out;
}

/** CPU time the database spent between two `databaseCpu` readings (a backend that came since counts whole). */
export function databaseCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}
