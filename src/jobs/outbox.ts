/**
 * The outbox pump: delivers outbox rows (written by triggers and operations in the same
 * transaction as the change) to their consumers, at least once, in id order per batch.
 * Several processes share the work through FOR UPDATE SKIP LOCKED; a failing batch is
 * retried with backoff and never blocks other rows for long.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';

export interface OutboxRow {
  id: number;
  topic: string;
  subject_id: string;
  payload: Record<string, unknown>;
  attempts: number;
}
/** Handles a batch of one topic's rows; throwing leaves them for a retry. */
export type OutboxConsumer = (rows: OutboxRow[]) => Promise<void>;

export interface OutboxPump {
  drain(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts polling the outbox every `intervalMs`; `drain()` processes everything available now.
 * With `onlyTopics` the pump takes rows of its consumers' topics alone (a lane: see
 * startOutboxLanes); without, it takes every row and drops those no consumer handles.
 */
export function startOutboxPump(
  db: Knex,
  consumers: Record<string, OutboxConsumer>,
  log: Logger,
  intervalMs = 250,
  options: { onlyTopics?: boolean } = {},
): OutboxPump {
  let stopped = false;
  let running: Promise<number> | null = null;
  const topics = Object.keys(consumers);

  async function processBatch(): Promise<number> {
    return db.transaction(async (trx) => {
      const next = trx('outbox').where('available_at', '<=', trx.fn.now());
      if (options.onlyTopics) next.whereIn('topic', topics);
      const rows = (await next.orderBy('id').limit(200).forUpdate().skipLocked()) as OutboxRow[];
      if (rows.length === 0) return 0;
      const byTopic = new Map<string, OutboxRow[]>();
      for (const row of rows) byTopic.set(row.topic, [...(byTopic.get(row.topic) ?? []), row]);
      for (const [topic, batch] of byTopic) {
        const consumer = consumers[topic];
        const ids = batch.map((r) => r.id);
        try {
          if (consumer) await consumer(batch);
          await trx('outbox').whereIn('id', ids).delete();
        } catch (err) {
          const attempts = (batch[0]?.attempts ?? 0) + 1;
          const delaySeconds = Math.min(300, 2 ** attempts) * (0.75 + Math.random() * 0.5);
          log.warn({ err, topic, attempts }, 'outbox consumer failed; will retry');
          await trx('outbox')
            .whereIn('id', ids)
            .update({ attempts, last_error: String((err as Error).message ?? err).slice(0, 500), available_at: new Date(Date.now() + delaySeconds * 1000) });
        }
      }
      return rows.length;
    });
  }

  async function drain(): Promise<number> {
    while (running) await running;
    let total = 0;
    for (;;) {
      running = processBatch();
      const n = await running.finally(() => {
        running = null;
      });
      total += n;
      if (n === 0 || stopped) return total;
    }
  }

  const timer = setInterval(() => {
    if (!running && !stopped) drain().catch((err: unknown) => log.error({ err }, 'outbox pump failed'));
  }, intervalMs);
  timer.unref();

  return {
    drain,
    async stop() {
      stopped = true;
      clearInterval(timer);
      while (running) await running.catch(() => 0);
    },
  };
}

/**
 * One pump per lane of topics, so a slow consumer holds back only its own lane: indexing an
 * item for search waits on the embedding model for as long as a long body's passages take, and
 * in one pump every webhook and event of every account waited with it (bench/README.md). Each lane takes only its consumers' topics (the outbox's index on topic and id finds
 * them past another lane's backlog). `drain()` drains every lane.
 */
export function startOutboxLanes(db: Knex, lanes: Record<string, OutboxConsumer>[], log: Logger, intervalMs = 250): OutboxPump {
  const pumps = lanes.map((consumers) => startOutboxPump(db, consumers, log, intervalMs, { onlyTopics: true }));
  return {
    async drain() {
      const counts = await Promise.all(pumps.map((pump) => pump.drain()));
      return counts.reduce((a, b) => a + b, 0);
    },
    async stop() {
      await Promise.all(pumps.map((pump) => pump.stop()));
    },
  };
}
