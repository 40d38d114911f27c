/**
 * The rate limits as koa middleware (counting: src/domain/accounts/rate-limits.ts). One-minute windows
 * counted in Postgres, so every server process on one database enforces one limit. Per token (in the guard, counted before
 * authentication, so a bad key is counted too) and, above it, per client address
 * (addressRateLimit, for every request).
 * @see docs/auth.md "Rate limits"
 */
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import { ApiError } from '../core/errors.js';
import { countRequest, type RateDecision } from '../domain/accounts/rate-limits.js';

/** The bucket of a client address. */
export function addressBucket(address: string): string {
  return `a:${address}`;
}

/** Paths the per-address limit leaves alone: health probes, which load balancers call often. */
const UNCOUNTED_PATHS = new Set(['/healthz', '/readyz']);

/** Where addressRateLimit leaves a count for the bearer guard to make with its own, in one statement. */
export interface DeferredAddressCount {
  bucket: string;
  limit: number;
  counted: boolean;
}

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
