/**
 * Password guessing, throttled per account and per address (rate-limiter-flexible on Postgres,
 * table `throttles`, shared by every process): after `perAccount` failed sign-ins for one
 * email within 15 minutes, that email is refused, whoever asks, until the window is over (and
 * 15 minutes longer once a refused attempt fails again); after `perAddress` failures from one
 * address within a day, that address is refused likewise for the day. A
 * successful sign-in clears the email's count. Whether the email has an account changes
 * nothing here, so the refusal tells nobody.
 */
import type { Knex } from 'knex';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { throttleCounter } from './registration-limit.js';

export interface SignInThrottle {
  /** Seconds until this email and address may try again, or 0. */
  wait(email: string, address: string): Promise<number>;
  failed(email: string, address: string): Promise<void>;
  succeeded(email: string): Promise<void>;
}

const limiters = new WeakMap<Knex, SignInThrottle>();

/** The throttle over `db` (one per database pool). */
export function signInThrottle(db: Knex, limits: { perAccount: number; perAddress: number }): SignInThrottle {
  const known = limiters.get(db);
  if (known) return known;
  const byAccount = throttleCounter(db, { keyPrefix: 'email', points: limits.perAccount, duration: 15 * 60, blockDuration: 15 * 60 });
  const byAddress = throttleCounter(db, { keyPrefix: 'address', points: limits.perAddress, duration: 24 * 3600, blockDuration: 24 * 3600 });
  const emailKey = (email: string) => email.trim().toLowerCase();
  const throttle: SignInThrottle = {
    async wait(email, address) {
      const [account, from] = await Promise.all([byAccount.get(emailKey(email)), byAddress.get(address)]);
      const blocked = (res: RateLimiterRes | null, points: number) => (res && res.consumedPoints >= points ? Math.ceil(res.msBeforeNext / 1000) : 0);
      return Math.max(blocked(account, limits.perAccount), blocked(from, limits.perAddress));
    },
    async failed(email, address) {
      await Promise.all([byAccount.consume(emailKey(email)).catch(ignoreLimit), byAddress.consume(address).catch(ignoreLimit)]);
    },
    async succeeded(email) {
      await byAccount.delete(emailKey(email));
    },
  };
  limiters.set(db, throttle);
  return throttle;
}

/** consume() rejects with a RateLimiterRes once over the limit: that is the count we wanted. */
function ignoreLimit(err: unknown): void {
  if (!(err instanceof RateLimiterRes)) throw err;
}
