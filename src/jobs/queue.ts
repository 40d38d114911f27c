/**
 * The durable job queue (pg-boss on the same Postgres): scheduled and retried work that must
 * survive restarts and run once across several server processes — the trash purge,
 * webhook deliveries, automation runs.
 */
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Jobs } from '../core/services.js';

export type { Jobs };

export interface JobDefinition<T extends object = object> {
  name: string;
  /** `signal` aborts when the process starts to stop: long work stops at a point it can go on from, and throws. */
  handler(data: T, job: { id: string; retryCount: number; jobs?: Jobs; signal?: AbortSignal }): Promise<void>;
  /** Retry policy of the queue. */
  queue?: Omit<PgBoss.Queue, 'name'>;
  /** Cron schedule (in `tz`, default UTC): pg-boss runs it once per tick across every process. */
  schedule?: { cron: string; tz?: string };
}

/**
 * pg-boss runs its SQL through `executeSql(text, values)` with $n placeholders; knex binds
 * `?`. Rewrites one into the other so pg-boss can insert a job on a knex transaction.
 */
function knexExecutor(trx: Knex): { executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> } {
  return {
    async executeSql(text, values = []) {
      const bindings: unknown[] = [];
      const sql = text.replace(/\?/g, '\\?').replace(/\$(\d+)/g, (_, n: string) => {
        bindings.push(values[Number(n) - 1] ?? null);
        return '?';
      });
      return (await trx.raw(sql, bindings as Knex.RawBinding[])) as { rows: unknown[] };
    },
  };
}

/**
 * Starts pg-boss, creates the queues, registers workers and schedules. `maintenanceSeconds`: how
 * often one process (whichever gets there) expires jobs a stopped process left active, so they
 * are retried (JOB_MAINTENANCE_SECONDS).
 */
export async function startJobs(url: string, definitions: JobDefinition[], log: Logger, options: { maintenanceSeconds?: number } = {}): Promise<Jobs> {
  const boss = new PgBoss({
    connectionString: url,
    schema: 'pgboss',
    max: 4,
    ...(options.maintenanceSeconds ? { maintenanceIntervalSeconds: options.maintenanceSeconds } : {}),
  });
  boss.on('error', (err: Error) => log.error({ err }, 'job queue error'));
  await boss.start();
  await createQueues(url, boss, definitions);
  const stopping = new AbortController();
  const jobs: Jobs = {
    send: (name, data, options) => boss.send(name, data, options ?? {}),
    sendInTransaction: (trx, name, data, options) => boss.send(name, data, { ...(options ?? {}), db: knexExecutor(trx) }),
    stop: () => {
      // Jobs in hand get the graceful stop's 10 s to reach a point their retry can go on from.
      stopping.abort();
      return boss.stop({ graceful: true, wait: true, timeout: 10000 });
    },
  };
  for (const def of definitions) {
    await boss.work<object>(def.name, { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
      if (!job) return;
      try {
        await def.handler(job.data, { id: job.id, retryCount: job.retryCount, jobs, signal: stopping.signal });
      } catch (err) {
        log.warn({ err, job: def.name, id: job.id, retryCount: job.retryCount }, 'job failed; pg-boss retries it per the queue policy');
        throw err;
      }
    });
    if (def.schedule) await boss.schedule(def.name, def.schedule.cron, {}, { tz: def.schedule.tz ?? 'UTC' });
  }
  return jobs;
}

/** The advisory lock processes take turns under while they create the queues (any fixed number; this one spells 'lkjq'). */
const QUEUE_SETUP_LOCK = 0x6c6b6a71;

/**
 * Creates the queues the definitions name that do not exist yet, one process at a time:
 * pg-boss's create_queue run by two processes at once deadlocks (two processes started together
 * on a new database showed it).
 */
async function createQueues(url: string, boss: PgBoss, definitions: JobDefinition[]): Promise<void> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [QUEUE_SETUP_LOCK]);
    for (const def of definitions) if (!(await boss.getQueue(def.name))) await boss.createQueue(def.name, { name: def.name, ...(def.queue ?? {}) });
  } finally {
    await lock.end();
  }
}
