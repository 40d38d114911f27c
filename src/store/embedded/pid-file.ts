import fs from 'node:fs/promises';
import path from 'node:path';
import { exists, isErrno } from './fs-helpers.js';

type PidFileState = { kind: 'absent' } | { kind: 'running'; pid: number } | { kind: 'stale'; file: string; reason: string };

/** Tells whether a postmaster still runs on the cluster under dataDir (e.g. left by a killed process); undefined if none does. */
export async function runningPostmasterPid(dataDir: string): Promise<number | undefined> {
  const state = await inspectPidFile(path.join(path.resolve(dataDir), 'pgdata'));
  return state.kind === 'running' ? state.pid : undefined;
}

/**
 * Postgres itself only trusts kill(pid, 0), which misfires when the pid was reused by an unrelated process (or is a
 * zombie), so we decide: gone or unrelated → stale; a live postgres whose data directory is this cluster → running.
 */
async function inspectPidFile(clusterDir: string): Promise<PidFileState> {
  const file = path.join(clusterDir, 'postmaster.pid');
  let content: string;
  try {
    content = await fs.readFile(file, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return { kind: 'absent' };
    throw error;
  }
  const pid = Number.parseInt(content.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return { kind: 'stale', file, reason: 'its pid is unreadable' };
  if (!(await isAlive(pid))) return { kind: 'stale', file, reason: `pid ${pid} is no longer running` };
  if (await isPostgresOn(pid, clusterDir)) return { kind: 'running', pid };
  return { kind: 'stale', file, reason: `pid ${pid} now belongs to an unrelated process` };
}

/**
 * After a crash postmaster.pid stays behind: remove it if stale. A postmaster whose server was
 * killed (SIGKILL, OOM) outlives it, orphaned: stop it (fast shutdown rolls back what that
 * server had in flight) and start afresh. Refuse to start a second server beside a live one.
 */
export async function clearStalePidFile(clusterDir: string, log: (line: string) => void): Promise<void> {
  const state = await inspectPidFile(clusterDir);
  if (state.kind === 'running' && (await isOrphan(state.pid))) {
    // The listkeeper that started it crashed (SIGKILL, OOM) and Postgres outlived it: stop it
    // cleanly and start our own, as a restart after a crash should.
    log(`stopping Postgres (pid ${state.pid}) left running by a listkeeper that is gone`);
    process.kill(state.pid, 'SIGINT');
    for (let i = 0; i < 100 && (await isAlive(state.pid)); i++) await new Promise((r) => setTimeout(r, 100));
    if (await isAlive(state.pid))
      throw new Error(`Postgres (pid ${state.pid}) left by a crashed listkeeper did not stop; stop it with kill -INT ${state.pid}.`);
    await fs.rm(path.join(clusterDir, 'postmaster.pid'), { force: true });
    return;
  }
  if (state.kind === 'running') {
    throw new Error(
      `Postgres (pid ${state.pid}) is already running on ${clusterDir}; another listkeeper may be using this data directory. ` +
        `Stop it first (kill -INT ${state.pid}) rather than starting a second server on the same files.`,
    );
  }
  if (state.kind === 'stale') {
    log(`removing stale postmaster.pid: ${state.reason}`);
    await fs.rm(state.file, { force: true });
  }
}

/** True when the postmaster's parent is gone: it was re-parented because its starter died. */
async function isOrphan(pid: number): Promise<boolean> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const ppid = Number.parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? '', 10);
  if (!Number.isInteger(ppid) || ppid <= 1) return true;
  if (!(await isAlive(ppid))) return true;
  const parent = (await fs.readFile(`/proc/${ppid}/cmdline`, 'utf8').catch(() => '')).split('\0');
  // Started by a node process (the server, the CLI, a test) that still runs: in use.
  return !parent.some((arg) => /(^|\/)node(js)?$/.test(arg));
}

/** kill(pid, 0), where EPERM still means "exists"; a zombie counts as gone (containers whose PID 1 never reaps keep them). */
async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (!isErrno(error, 'EPERM')) return false;
  }
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** Checks the process name, then the working directory (a postmaster's is its data directory); if /proc cannot tell, assume the worst. */
async function isPostgresOn(pid: number, clusterDir: string): Promise<boolean> {
  const comm = await fs.readFile(`/proc/${pid}/comm`, 'utf8').catch(() => undefined);
  if (comm !== undefined && comm.trim() !== 'postgres') return false;
  try {
    const [cwd, wanted] = await Promise.all([fs.readlink(`/proc/${pid}/cwd`), fs.realpath(clusterDir)]);
    return cwd === wanted;
  } catch (error) {
    const vanished = isErrno(error, 'ENOENT') && (await exists(`/proc/${process.pid}`));
    return !vanished;
  }
}
