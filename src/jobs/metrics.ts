/** The database-backed gauges of /metrics: outbox lag, job queue depth, search indexing backlog. */
import type { Knex } from 'knex';
import type { SystemReadings } from '../core/metrics.js';

/** Reads the gauges (the queue's table exists once pg-boss has started in some process). */
export async function readSystem(db: Knex): Promise<SystemReadings> {
  const { rows } = await db.raw<{ rows: { lag: number | null; backlog: number; has_queue: boolean }[] }>(
    `SELECT (SELECT EXTRACT(EPOCH FROM now() - min(created_at))::float8 FROM outbox) AS lag,
            (SELECT count(*)::int FROM outbox WHERE topic = 'item') AS backlog,
            to_regclass('pgboss.job') IS NOT NULL AS has_queue`,
  );
  const row = rows[0]!;
  const queueDepth: Record<string, number> = {};
  if (row.has_queue) {
    const queues = await db.raw<{ rows: { name: string; n: number }[] }>(
      `SELECT name, count(*)::int AS n FROM pgboss.job WHERE state IN ('created', 'retry') GROUP BY name`,
    );
    for (const q of queues.rows) queueDepth[q.name] = q.n;
  }
  return {
    outboxLagSeconds: Math.max(0, row.lag ?? 0),
    queueDepth,
    embeddingBacklog: row.backlog,
  };
}
