/**
 * The rate limits: a fixed one-minute window per bucket, counted in Postgres so that every
 * server process on one database enforces one limit. Per token (in the guard, counted before
 * authentication, so a bad key is counted too) and, above it, per client address
 * (addressRateLimit, for every request).
 * @see ../../../shared/spec/service.md "Limits"
 */
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import { ApiError } from '../http/errors.js';
import { hashToken } from './apikeys.js';

export interface RateDecision { allowed: boolean; limit: number; remaining: number; resetSeconds: number }

/** Counts one request against `bucket` and says whether it may pass. */
export async function countRequest(db: Knex, bucket: string, limit: number, now: Date = new Date()): Promise<RateDecision> {
  const [decision] = await countRequests(db, [{ bucket, limit }], now);
  return decision!;
}

/** A scalar SQL query run in the same statement as the counting (saves a round trip). */
export interface Piggyback { sql: string; bindings: Knex.RawBinding[] }

/**
 * Counts one request against each bucket, in one statement (rows locked in bucket order, so
 * concurrent requests sharing buckets never wait on each other in a cycle), and says for each
 * whether it may pass, in the order given; `extra`'s value comes back as `.extra`.
 */
export async function countRequests(db: Knex, buckets: { bucket: string; limit: number }[], now: Date = new Date(), extra?: Piggyback): Promise<RateDecision[] & { extra?: unknown }> {
  const windowStart = new Date(Math.floor(now.getTime() / 60000) * 60000);
  const sorted = [...new Set(buckets.map((b) => b.bucket))].sort();
  const result = await db.raw<{ rows: { counts: Record<string, number>; extra: unknown }[] }>(
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
  await db('rate_limits').where('window_start', '<', new Date(current.getTime() - 120000)).delete().catch(() => undefined);
}

/** The bucket of a client address. */
export function addressBucket(address: string): string {
  return `a:${address}`;
}

/** Paths the per-address limit leaves alone: health probes, which load balancers call often. */
const UNCOUNTED_PATHS = new Set(['/healthz', '/readyz']);

/** Where addressRateLimit leaves a count for the bearer guard to make with its own, in one statement. */
export interface DeferredAddressCount { bucket: string; limit: number; counted: boolean }

/**
 * Koa middleware: the per-address limit, above the per-token one. Every request counts
 * (authenticated or not, good token or bad), on the API, MCP, the OAuth endpoints and the
 * web pages alike; over the limit it answers 429 `rateLimited` with Retry-After.
 * A request with a bearer token on /api/v1 or /mcp leaves its count to the bearer guard,
 * which counts both limits in one statement; if no guard counted it (a route without one, or
 * a refusal before the guard), it is counted when the answer is ready, and over the limit the
 * answer is replaced by the 429.
 */
export function addressRateLimit(deps: { db: Knex; limit: number; now: () => Date; guardedPrefixes?: string[] }) {
  const prefixes = deps.guardedPrefixes ?? ['/api/v1/', '/mcp'];
  return async function limitAddress(ctx: Context, next: Next): Promise<void> {
    if (UNCOUNTED_PATHS.has(ctx.path)) return next();
    const bucket = addressBucket(ctx.ip || 'unknown');
    if (/^Bearer\s/i.test(ctx.get('authorization')) && prefixes.some((p) => ctx.path.startsWith(p))) {
      const deferred: DeferredAddressCount = { bucket, limit: deps.limit, counted: false };
      ctx.state.deferredAddressCount = deferred;
      let failure: unknown = null;
      try {
        await next();
      } catch (err) {
        failure = err;
      }
      if (!deferred.counted) {
        // No guard ran (a route without one, or a refusal before it): nothing was done for the
        // caller, so over the limit its answer becomes the 429.
        const rate = await countRequest(deps.db, bucket, deps.limit, deps.now());
        if (!rate.allowed) throw addressLimited(rate);
      }
      if (failure) throw failure;
      return;
    }
    const rate = await countRequest(deps.db, bucket, deps.limit, deps.now());
    if (!rate.allowed) throw addressLimited(rate);
    await next();
  };
}

/** The 429 of the per-address limit. */
export function addressLimited(rate: RateDecision): ApiError {
  return new ApiError('rateLimited', `Too many requests from your address: the limit is ${rate.limit} a minute; retry in ${rate.resetSeconds} seconds.`, {
    headers: { 'Retry-After': String(rate.resetSeconds) },
  });
}
