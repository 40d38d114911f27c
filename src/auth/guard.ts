/**
 * The guard in front of /api/v1 and /mcp: rate limit first (a bad token counts too), then
 * bearer authentication by API key hash lookup or OAuth access token.
 */
import type { Context, Next } from 'koa';
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import type { Principal } from '../operations/types.js';
import { ApiError, unauthorized } from '../http/errors.js';
import { looksLikeApiKey, verifyApiKey } from './apikeys.js';
import { countRequest, tokenBucket } from './ratelimit.js';

/** Verifies an OAuth access token; installed by the OAuth server when it runs. */
export type AccessTokenVerifier = (token: string) => Promise<Principal | null>;

export interface GuardDeps { db: Knex; config: Config; now: () => Date; verifyAccessToken?: AccessTokenVerifier }

export function wwwAuthenticate(config: Config, error?: string): string {
  const base = `Bearer resource_metadata="${config.baseUrl}/.well-known/oauth-protected-resource"`;
  return error ? `${base}, error="${error}"` : base;
}

/** Koa middleware: sets `ctx.state.principal` or answers 401/429. */
export function bearerGuard(deps: GuardDeps) {
  return async function guardBearer(ctx: Context, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      throw new ApiError('unauthorized', 'Send Authorization: Bearer <token> with an API key or an OAuth access token.', {
        headers: { 'WWW-Authenticate': wwwAuthenticate(deps.config) },
      });
    }
    const token = match[1]!;
    const rate = await countRequest(deps.db, tokenBucket(token), deps.config.rateLimitPerMinute, deps.now());
    ctx.set('RateLimit-Limit', String(rate.limit));
    ctx.set('RateLimit-Remaining', String(rate.remaining));
    ctx.set('RateLimit-Reset', String(rate.resetSeconds));
    if (!rate.allowed) {
      throw new ApiError('rateLimited', `Rate limit of ${rate.limit} requests a minute reached; retry in ${rate.resetSeconds} seconds.`, {
        headers: { 'Retry-After': String(rate.resetSeconds) },
      });
    }
    const principal = await authenticate(deps, token);
    if (!principal) {
      const error = unauthorized('This token is not valid: it is unknown, expired, replaced or revoked. Sign in again or create a new API key.');
      error.extra.headers = { 'WWW-Authenticate': wwwAuthenticate(deps.config, 'invalid_token') };
      throw error;
    }
    ctx.state.principal = principal;
    await next();
  };
}

async function authenticate(deps: GuardDeps, token: string): Promise<Principal | null> {
  if (looksLikeApiKey(token)) {
    const key = await verifyApiKey(deps.db, token);
    return key ? { userId: key.userId, via: 'apiKey', clientName: null, tokenId: `key:${key.keyId}` } : null;
  }
  return deps.verifyAccessToken ? deps.verifyAccessToken(token) : null;
}
