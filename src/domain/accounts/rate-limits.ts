/**
 * Request counting for the rate limits: a fixed one-minute window per bucket, counted in
 * Postgres so that every server process on one database enforces one limit, in the statement
 * that also finds the request's API key or app password. The koa middleware that applies them
 * is src/auth/rate-limit.ts (per address) and src/auth/guard.ts (per token and address).
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
  const { decisions } = await countAndAuthenticate(db, [{ bucket, limit }], null, now);
  return decisions[0]!;
}

/** An API key or app password whose hash the counting statement found. */
export interface FoundCredential {
  id: string;
  userId: string;
  /** The grant it was made with, as stored (null: the whole person). */
  grant: unknown;
}

/** What the counting statement answers: one decision per bucket, in the order given, and what `tokenHash` names. */
export interface Counted {
  decisions: RateDecision[];
  apiKey: FoundCredential | null;
  appPassword: (FoundCredential & { name: string }) | null;
}

/**
 * Counts one request against each bucket and finds the API key and the app password whose
 * hash is `tokenHash` (null: none), in one statement: an authenticated request costs one
 * round trip before its operation, counts and key lookup together.
 *
 * Requests that count the same buckets with the same token while a count of them is on its
 * way to Postgres wait for it and are then counted together, in one statement that adds
 * their number: the i-th of such a group is the (total - n + i)-th request of the window, as
 * if each had run its own statement in arrival order. The limit stays exact across processes
 * (every request is in Postgres's count before it is answered), and under concurrent load
 * from one token a request costs a fraction of a round trip instead of one
 * (bench/README.md). A lone request runs at once.
 */
export function countAndAuthenticate(
  db: Knex,
  buckets: { bucket: string; limit: number }[],
  tokenHash: string | null,
  now: Date = new Date(),
): Promise<Counted> {
  const windowStart = Math.floor(now.getTime() / 60000) * 60000;
  const sorted = [...new Set(buckets.map((b) => b.bucket))].sort();
  const key = `${windowStart}\n${sorted.join('\n')}\n${tokenHash ?? ''}`;
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
    void drain(db, lanes, key, fresh, [waiter], { windowStart: new Date(windowStart), sorted, tokenHash });
  });
}

interface Waiter {
  buckets: { bucket: string; limit: number }[];
  now: Date;
  resolve(counted: Counted): void;
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
  statement: { windowStart: Date; sorted: string[]; tokenHash: string | null },
): Promise<void> {
  let group = first;
  while (group.length > 0) {
    try {
      const row = await countGroup(db, statement.windowStart, statement.sorted, group.length, statement.tokenHash);
      const apiKey = row.key_id ? { id: row.key_id, userId: row.key_user_id!, grant: row.key_grant } : null;
      const appPassword = row.password_id ? { id: row.password_id, userId: row.password_user_id!, name: row.password_name!, grant: row.password_grant } : null;
      group.forEach((waiter, i) => {
        const resetSeconds = Math.max(1, Math.ceil((statement.windowStart.getTime() + 60000 - waiter.now.getTime()) / 1000));
        const decisions = waiter.buckets.map(({ bucket, limit }) => {
          const count = row.counts[bucket]! - group.length + 1 + i;
          return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
        });
        waiter.resolve({ decisions, apiKey, appPassword });
      });
    } catch (err) {
      for (const waiter of group) waiter.reject(err);
    }
    group = lane.waiting;
    lane.waiting = [];
  }
  lanes.delete(key);
}

interface CountedRow {
  counts: Record<string, number>;
  key_id: string | null;
  key_user_id: string | null;
  key_grant: unknown;
  password_id: string | null;
  password_user_id: string | null;
  password_name: string | null;
  password_grant: unknown;
}

/**
 * One statement adding `n` to each bucket's count (rows locked in bucket order, so concurrent
 * counts never wait on each other in a cycle) and reading the API key and the app password of
 * `tokenHash`. A hash names at most one of them; a caller takes only the kind it accepts.
 */
const COUNT_AND_AUTHENTICATE = `WITH counted AS (
    INSERT INTO rate_limits (bucket, window_start, count)
    SELECT b, ?::timestamptz, ?::int FROM unnest(?::text[]) WITH ORDINALITY AS u(b, n) ORDER BY n
    ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + EXCLUDED.count
    RETURNING bucket, count
  )
  SELECT (SELECT json_object_agg(bucket, count) FROM counted) AS counts,
         k.id AS key_id, k.user_id AS key_user_id, k."grant" AS key_grant,
         p.id AS password_id, p.user_id AS password_user_id, p.name AS password_name, p."grant" AS password_grant
  FROM (SELECT ?::text AS hash) AS token
  LEFT JOIN api_keys k ON k.key_hash = token.hash
  LEFT JOIN app_passwords p ON p.password_hash = token.hash`;

async function countGroup(db: Knex, windowStart: Date, sorted: string[], n: number, tokenHash: string | null): Promise<CountedRow> {
  const result = await preparedRaw<{ rows: CountedRow[] }>(db, COUNT_AND_AUTHENTICATE, [windowStart, n, sorted, tokenHash]);
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
