/**
 * Dynamic client registrations counted per client address and day (rate-limiter-flexible on
 * Postgres, table `throttles`), so anonymous registrations cannot pile up.
 */
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

let limiter: { db: Knex; limiter: RateLimiterPostgres } | null = null;

/** A counter on the `throttles` table (rate-limiter-flexible's layout, made by a migration). */
export function throttleCounter(db: Knex, options: { keyPrefix: string; points: number; duration: number; blockDuration?: number }): RateLimiterPostgres {
  return new RateLimiterPostgres({ storeClient: db, storeType: 'knex', tableName: 'throttles', tableCreated: true, clearExpiredByTimeout: false, ...options });
}

/** Counts one registration from `address`: 0 when it may go ahead, else the seconds until it may. */
export async function countRegistration(db: Knex, address: string, perDay: number): Promise<number> {
  if (limiter?.db !== db) limiter = { db, limiter: throttleCounter(db, { keyPrefix: 'registration', points: perDay, duration: 24 * 3600 }) };
  try {
    await limiter.limiter.consume(address);
    return 0;
  } catch (err) {
    if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    throw err;
  }
}
