/**
 * Request counting for the rate limits: a fixed one-minute window per bucket, counted in
 * Postgres so that every server process on one database enforces one limit. The koa
 * middleware that applies them is src/auth/rate-limit.ts.
 */
import type { Knex } from 'knex';
import { preparedRaw } from '../../store/prepared.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** Counts one request against `bucket` and says whether it may pass. */
export async function countRequest(db: Knex, bucket: string, limit: number, now: Date = new Date()): Promise<RateDecision> {
  const [decision] = await countRequests(db, [{ bucket, limit }], now);
  return decision!;
}

/** A scalar SQL query run in the same statement as the counting (saves a round trip). */
export interface Piggyback {
  sql: string;
  bindings: Knex.RawBinding[];
}

/**
 * Counts one request against each bucket and says for each whether it may pass, in the order
 * given; `extra`'s value comes back as `.extra`.
 *
 * Requests that count the same buckets while a count of them is on its way to Postgres wait
 * for it and are then counted together, in one statement that adds their number: the i-th of
 * such a group is the (total - n + i)-th request of the window, as if each had run its own
 * statement in arrival order. The limit stays exact across processes (every request is in
 * Postgres's count before it is answered), and under concurrent load from one token a
 * request costs a fraction of a round trip instead of one (bench/README.md). A lone request
 * runs at once, as before.
 */
export function countRequests(
  db: Knex,
  buckets: { bucket: string; limit: number }[],
  now: Date = new Date(),
  extra?: Piggyback,
): Promise<RateDecision[] & { extra?: unknown }> {
  const windowStart = Math.floor(now.getTime() / 60000) * 60000;
  const sorted = [...new Set(buckets.map((b) => b.bucket))].sort();
  const key = `${windowStart}\n${sorted.join('\n')}\n${extra ? `${extra.sql}\n${JSON.stringify(extra.bindings)}` : ''}`;
  return new Promise((resolve, reject) => {
    const waiter: Waiter = { buckets, now, resolve, reject };
    let lanes = lanesByDb.get(db);
    if (!lanes) lanesByDb.set(db, (lanes = new Map()));
    const lane = lanes.get(key);
    if (lane) {
      lane.waiting.push(waiter);
      return;
    }
    const fresh: Lane = { waiting: [] };
    lanes.set(key, fresh);
    void drain(db, lanes, key, fresh, [waiter], { windowStart: new Date(windowStart), sorted, extra });
  });
}

interface Waiter {
  buckets: { bucket: string; limit: number }[];
  now: Date;
  resolve(decisions: RateDecision[] & { extra?: unknown }): void;
  reject(err: unknown): void;
}

/** The requests waiting for a count of one set of buckets already on its way. */
interface Lane {
  waiting: Waiter[];
}

const lanesByDb = new WeakMap<Knex, Map<string, Lane>>();

/** Counts `group`, then whoever came meanwhile, until nobody waits. */
async function drain(
  db: Knex,
  lanes: Map<string, Lane>,
  key: string,
  lane: Lane,
  first: Waiter[],
  statement: { windowStart: Date; sorted: string[]; extra?: Piggyback },
): Promise<void> {
  let group = first;
  while (group.length > 0) {
    try {
      const row = await countGroup(db, statement.windowStart, statement.sorted, group.length, statement.extra);
      group.forEach((waiter, i) => {
        const resetSeconds = Math.max(1, Math.ceil((statement.windowStart.getTime() + 60000 - waiter.now.getTime()) / 1000));
        const decisions: RateDecision[] & { extra?: unknown } = waiter.buckets.map(({ bucket, limit }) => {
          const count = row.counts[bucket]! - group.length + 1 + i;
          return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
        });
        decisions.extra = row.extra;
        waiter.resolve(decisions);
      });
    } catch (err) {
      for (const waiter of group) waiter.reject(err);
    }
    group = lane.waiting;
    lane.waiting = [];
  }
  lanes.delete(key);
}

/** One statement adding `n` to each bucket's count (rows locked in bucket order, so concurrent counts never wait on each other in a cycle). */
async function countGroup(
  db: Knex,
  windowStart: Date,
  sorted: string[],
  n: number,
  extra?: Piggyback,
): Promise<{ counts: Record<string, number>; extra: unknown }> {
  const result = await preparedRaw<{ rows: { counts: Record<string, number>; extra: unknown }[] }>(
    db,
    `WITH counted AS (
       INSERT INTO rate_limits (bucket, window_start, count)
       SELECT b, ?::timestamptz, ?::int FROM unnest(?::text[]) WITH ORDINALITY AS u(b, n) ORDER BY n
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + EXCLUDED.count
       RETURNING bucket, count
     )
     SELECT (SELECT json_object_agg(bucket, count) FROM counted) AS counts, ${extra ? `(${extra.sql})` : 'NULL'} AS extra`,
    [windowStart, n, sorted, ...(extra?.bindings ?? [])],
  );
  if (Math.random() < 0.01) void sweepOldWindows(db, windowStart);
  return result.rows[0]!;
}

/** The bucket of a bearer token, from its hashToken; never the token itself. */
export function tokenBucket(tokenHash: string): string {
  return `t:${tokenHash.slice(0, 40)}`;
}

async function sweepOldWindows(db: Knex, current: Date): Promise<void> {
  await db('rate_limits')
    .where('window_start', '<', new Date(current.getTime() - 120000))
    .delete()
    .catch(() => undefined);
}
