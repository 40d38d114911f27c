/**
 * The resource side: OAuth access tokens are ES256 JWTs (RFC 9068, `typ` at+jwt) that every
 * process verifies locally with `jose` against the signing keys in Postgres — issuer,
 * audience (the service, BASE_URL), expiry and signature — then maps to the person. The
 * token's grant must still exist, so revoking a connected app (or a refresh-token replay)
 * stops its access tokens at once instead of at their expiry.
 * @see docs/auth.md "Access tokens"
 */
import type { Knex } from 'knex';
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWK, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../../core/config.js';
import type { Principal } from '../../core/context.js';
import type { AccessTokenVerifier, PrefetchedGrant } from '../guard.js';
import { publicJwks, readKeys, type AuthKeys } from './keys.js';
import { clientLabel } from './client-metadata.js';
import { withGrant } from '../../domain/accounts/grants.js';
import { findOAuthGrant } from '../../domain/accounts/rate-limits.js';

/** Seconds of clock skew tolerated on `exp`, `iat` and `nbf`. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** How often an unknown `kid` may trigger a reload of the keys (another process may have rotated). */
const RELOAD_INTERVAL_MS = 10_000;

/** The public signing keys, reloaded from the database when a token names a key we do not know. */
export class VerificationKeys {
  private jwks: JWK[];
  private getKey: JWTVerifyGetKey;
  private lastReload = 0;

  constructor(
    private readonly db: Knex,
    keys: AuthKeys,
  ) {
    this.jwks = publicJwks(keys);
    this.getKey = createLocalJWKSet({ keys: this.jwks });
  }

  /** A jose key resolver. */
  readonly resolve: JWTVerifyGetKey = async (header, token) => {
    if (header.kid && !this.jwks.some((k) => k.kid === header.kid) && Date.now() - this.lastReload > RELOAD_INTERVAL_MS) {
      this.lastReload = Date.now();
      this.jwks = publicJwks(await readKeys(this.db));
      this.getKey = createLocalJWKSet({ keys: this.jwks });
    }
    return this.getKey(header, token);
  };
}

/** Builds the `verifyAccessToken` hook of createApp. */
export function createAccessTokenVerifier(deps: { db: Knex; config: Pick<Config, 'baseUrl'>; keys: VerificationKeys; now?: () => Date }): AccessTokenVerifier {
  return async function verifyAccessToken(token: string, prefetched?: PrefetchedGrant): Promise<Principal | null> {
    if (token.split('.').length !== 3) return null;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, deps.keys.resolve, {
        issuer: deps.config.baseUrl,
        audience: deps.config.baseUrl,
        typ: 'at+jwt',
        algorithms: ['ES256'],
        requiredClaims: ['sub', 'exp', 'iat', 'client_id', 'gid'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        ...(deps.now ? { currentDate: deps.now() } : {}),
      }));
    } catch (err) {
      if (err instanceof joseErrors.JOSEError) return null;
      throw err;
    }
    const { sub, client_id: clientId, gid } = payload;
    if (typeof sub !== 'string' || typeof clientId !== 'string' || typeof gid !== 'string') return null;
    // A sender-constrained token (DPoP, mTLS) must not be accepted as a plain bearer token.
    if (payload.cnf !== undefined) return null;
    // The guard reads the grant its count found (countAndAuthenticate); trusted only now, once it is the verified gid's.
    const grant = prefetched && prefetched.grantId === gid ? prefetched.row : await findOAuthGrant(deps.db, gid);
    if (!grant || grant.account_id !== sub || grant.client_id !== clientId) return null;
    return withGrant({ userId: sub, via: 'oauth', clientName: clientLabel(clientId, grant.client_name), tokenId: `grant:${gid}` }, grant.connection_grant);
  };
}
