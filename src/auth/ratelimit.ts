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
  const windowStart = new Date(Math.floor(now.getTime() / 60000) * 60000);
  const result = await db.raw<{ rows: { count: number }[] }>(
    `INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, 1)
     ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + 1
     RETURNING count`,
    [bucket, windowStart],
  );
  const count = result.rows[0]!.count;
  if (Math.random() < 0.01) void sweepOldWindows(db, windowStart);
  const resetSeconds = Math.max(1, Math.ceil((windowStart.getTime() + 60000 - now.getTime()) / 1000));
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
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

/**
 * Koa middleware: the per-address limit, above the per-token one. Every request counts
 * (authenticated or not, good token or bad), on the API, MCP, the OAuth endpoints and the
 * web pages alike; over the limit it answers 429 `rateLimited` with Retry-After.
 */
export function addressRateLimit(deps: { db: Knex; limit: number; now: () => Date }) {
  return async function limitAddress(ctx: Context, next: Next): Promise<void> {
    if (UNCOUNTED_PATHS.has(ctx.path)) return next();
    const rate = await countRequest(deps.db, addressBucket(ctx.ip || 'unknown'), deps.limit, deps.now());
    if (!rate.allowed) {
      throw new ApiError('rateLimited', `Too many requests from your address: the limit is ${rate.limit} a minute; retry in ${rate.resetSeconds} seconds.`, {
        headers: { 'Retry-After': String(rate.resetSeconds) },
      });
    }
    await next();
  };
}
