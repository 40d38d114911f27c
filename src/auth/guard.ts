/**
 * The guard in front of /api/v1 and /mcp: rate limits first (a bad token counts too), then
 * bearer authentication by API key hash lookup or OAuth access token. The guard counts the
 * client address's limit too (addressRateLimit leaves the requests it guards to it).
 */
import { decodeJwt } from 'jose';
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import type { Principal } from '../core/context.js';
import { ApiError, bearerChallenge, unauthorized } from '../core/errors.js';
import { hashToken, looksLikeApiKey } from '../domain/accounts/api-keys.js';
import { countAndAuthenticate, tokenBucket, type OAuthGrantRow, type RateDecision } from '../domain/accounts/rate-limits.js';
import { withGrant } from '../domain/accounts/grants.js';
import { addressBucket, addressLimited } from './rate-limit.js';

/** The grant row the guard's count read for the `gid` of a token not yet verified. */
export interface PrefetchedGrant {
  grantId: string;
  row: OAuthGrantRow | null;
}

/**
 * The `gid` claim of an access token, read without checking anything: which grant row the
 * guard's count may read beside it. Null when the token is no JWT or names none.
 */
export function unverifiedGrantId(token: string): string | null {
  try {
    const { gid } = decodeJwt(token);
    return typeof gid === 'string' ? gid : null;
  } catch {
    return null;
  }
}

/**
 * Verifies an OAuth access token; installed by the OAuth server when it runs. `prefetched` is
 * the grant row the guard's count read for the token's unverified `gid`, used once verified.
 */
export type AccessTokenVerifier = (token: string, prefetched?: PrefetchedGrant) => Promise<Principal | null>;

export interface GuardDeps {
  db: Knex;
  config: Config;
  now: () => Date;
  verifyAccessToken?: AccessTokenVerifier;
}

export function wwwAuthenticate(config: Config, error?: string): string {
  return bearerChallenge(config.baseUrl, error ? { error } : {});
}

/** The bearer token of a request, or null when its Authorization header holds none. */
export function bearerToken(ctx: Context): string | null {
  return /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1] ?? null;
}

/** Koa middleware: sets `ctx.state.principal` or answers 401/429. */
export function bearerGuard(deps: GuardDeps) {
  return async function guardBearer(ctx: Context, next: Next): Promise<void> {
    const token = bearerToken(ctx);
    if (!token) {
      throw new ApiError('unauthorized', 'Send Authorization: Bearer <token> with an API key or an OAuth access token.', {
        headers: { 'WWW-Authenticate': wwwAuthenticate(deps.config) },
      });
    }
    // One statement counts the token's limit and the address's and looks up an API key or the
    // OAuth grant the token names: a request costs one round trip before the operation.
    const tokenHash = hashToken(token);
    const isKey = looksLikeApiKey(token);
    const grantId = !isKey && deps.verifyAccessToken ? unverifiedGrantId(token) : null;
    const counted = await countAndAuthenticate(
      deps.db,
      [
        { bucket: tokenBucket(tokenHash), limit: deps.config.rateLimitPerMinute },
        { bucket: addressBucket(ctx.ip), limit: deps.config.rateLimitPerAddressPerMinute },
      ],
      isKey ? tokenHash : null,
      deps.now(),
      grantId,
    );
    const [rate, addressRate] = counted.decisions as [RateDecision, RateDecision];
    if (!addressRate.allowed) throw addressLimited(addressRate);
    ctx.set('RateLimit-Limit', String(rate.limit));
    ctx.set('RateLimit-Remaining', String(rate.remaining));
    ctx.set('RateLimit-Reset', String(rate.resetSeconds));
    if (!rate.allowed) {
      throw new ApiError('rateLimited', `Rate limit of ${rate.limit} requests a minute reached; retry in ${rate.resetSeconds} seconds.`, {
        headers: { 'Retry-After': String(rate.resetSeconds) },
      });
    }
    const key = counted.apiKey;
    const principal: Principal | null = isKey
      ? key
        ? withGrant({ userId: key.userId, via: 'apiKey', clientName: null, tokenId: `key:${key.id}` }, key.grant)
        : null
      : deps.verifyAccessToken
        ? await deps.verifyAccessToken(token, grantId ? { grantId, row: counted.oauthGrant } : undefined)
        : null;
    if (!principal) {
      const error = unauthorized('This token is not valid: it is unknown, expired, replaced or revoked. Sign in again or create a new API key.');
      error.extra.headers = { 'WWW-Authenticate': wwwAuthenticate(deps.config, 'invalid_token') };
      throw error;
    }
    ctx.state.principal = principal;
    await next();
  };
}
