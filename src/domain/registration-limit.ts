/**
 * Dynamic client registrations counted per client address and day (rate-limiter-flexible on
 * Postgres, table `throttles`), so anonymous registrations cannot pile up.
 */
import type { Knex } from 'knex';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

const limiters = new WeakMap<Knex, RateLimiterPostgres>();

/** Counts one registration from `address`: 0 when it may go ahead, else the seconds until it may. */
export async function countRegistration(db: Knex, address: string, perDay: number): Promise<number> {
  let limiter = limiters.get(db);
  if (!limiter) {
    limiter = new RateLimiterPostgres({
      storeClient: db,
      storeType: 'knex',
      tableName: 'throttles',
      tableCreated: true,
      clearExpiredByTimeout: false,
      keyPrefix: 'registration',
      points: perDay,
      duration: 24 * 3600,
    });
    limiters.set(db, limiter);
  }
  try {
    await limiter.consume(address);
    return 0;
  } catch (err) {
    if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    throw err;
  }
}
