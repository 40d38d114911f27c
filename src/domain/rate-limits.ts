/**
 * Request counting for the rate limits: a fixed one-minute window per bucket, counted in
 * Postgres so that every server process on one database enforces one limit. The koa
 * middleware that applies them is src/auth/rate-limit.ts.
 */
import type { Knex } from 'knex';
import { preparedRaw } from '../store/prepared.js';
import { hashToken } from './api-keys.js';

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
 * Counts one request against each bucket, in one statement (rows locked in bucket order, so
 * concurrent requests sharing buckets never wait on each other in a cycle), and says for each
 * whether it may pass, in the order given; `extra`'s value comes back as `.extra`.
 */
export async function countRequests(
  db: Knex,
  buckets: { bucket: string; limit: number }[],
  now: Date = new Date(),
  extra?: Piggyback,
): Promise<RateDecision[] & { extra?: unknown }> {
  const windowStart = new Date(Math.floor(now.getTime() / 60000) * 60000);
  const sorted = [...new Set(buckets.map((b) => b.bucket))].sort();
  const result = await preparedRaw<{ rows: { counts: Record<string, number>; extra: unknown }[] }>(
    db,
    `WITH counted AS (
       INSERT INTO rate_limits (bucket, window_start, count)
       SELECT b, ?::timestamptz, 1 FROM unnest(?::text[]) WITH ORDINALITY AS u(b, n) ORDER BY n
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + 1
       RETURNING bucket, count
     )
     SELECT (SELECT json_object_agg(bucket, count) FROM counted) AS counts, ${extra ? `(${extra.sql})` : 'NULL'} AS extra`,
    [windowStart, sorted, ...(extra?.bindings ?? [])],
  );
  const row = result.rows[0]!;
  if (Math.random() < 0.01) void sweepOldWindows(db, windowStart);
  const resetSeconds = Math.max(1, Math.ceil((windowStart.getTime() + 60000 - now.getTime()) / 1000));
  const decisions: RateDecision[] & { extra?: unknown } = buckets.map(({ bucket, limit }) => {
    const count = row.counts[bucket]!;
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
  });
  decisions.extra = row.extra;
  return decisions;
}

/** The bucket of a bearer token; never the token itself. */
export function tokenBucket(token: string): string {
  return `t:${hashToken(token).slice(0, 40)}`;
}

async function sweepOldWindows(db: Knex, current: Date): Promise<void> {
  await db('rate_limits')
    .where('window_start', '<', new Date(current.getTime() - 120000))
    .delete()
    .catch(() => undefined);
}
