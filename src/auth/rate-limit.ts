/**
 * The rate limits as koa middleware (counting: src/domain/accounts/rate-limits.ts). One-minute windows
 * counted in Postgres, so every server process on one database enforces one limit. Per token (in the guard, counted before
 * authentication, so a bad key is counted too) and, above it, per client address
 * (addressRateLimit for every request the guard does not see, the guard for the rest).
 * @see docs/auth.md "Rate limits"
 */
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import { ApiError } from '../core/errors.js';
import { countRequest, type RateDecision } from '../domain/accounts/rate-limits.js';

/** The bucket of a client address. */
export function addressBucket(address: string): string {
  return `a:${address || 'unknown'}`;
}

/** Paths the per-address limit leaves alone: health probes, which load balancers call often. */
const UNCOUNTED_PATHS = new Set(['/healthz', '/readyz']);

/**
 * Koa middleware: the per-address limit, above the per-token one. Every request counts
 * (authenticated or not, good token or bad), on the API, MCP, the OAuth endpoints and the
 * web pages alike; over the limit it answers 429 `rateLimited` with Retry-After. A request
 * `countedByGuard` says the bearer guard will see is left to the guard, which counts the
 * address with the token in one statement.
 */
export function addressRateLimit(deps: { db: Knex; limit: number; now: () => Date; countedByGuard: (ctx: Context) => boolean }) {
  return async function limitAddress(ctx: Context, next: Next): Promise<void> {
    if (UNCOUNTED_PATHS.has(ctx.path) || deps.countedByGuard(ctx)) return next();
    const rate = await countRequest(deps.db, addressBucket(ctx.ip), deps.limit, deps.now());
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
