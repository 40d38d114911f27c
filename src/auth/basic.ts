/**
 * HTTP Basic sign-in for CalDAV clients, which cannot do OAuth: the password is an app password
 * or the API key (the user name is not checked; clients ask for one, and the email is the one
 * to give). The token's rate limit is counted first, as the bearer guard counts it, so a wrong
 * password counts too.
 * @see docs/caldav.md
 */
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import type { Principal } from '../core/context.js';
import { hashToken, looksLikeApiKey } from '../domain/accounts/api-keys.js';
import { looksLikeAppPassword, noteAppPasswordUse } from '../domain/accounts/app-passwords.js';
import { countAndAuthenticate, tokenBucket } from '../domain/accounts/rate-limits.js';
import { ApiError } from '../core/errors.js';
import { withGrant } from '../domain/accounts/grants.js';

/** The person a Basic password signs in, or null; throws `rateLimited` over the token's limit. */
export async function basicPrincipal(deps: { db: Knex; config: Config; now(): Date }, _username: string, password: string): Promise<Principal | null> {
  const isKey = looksLikeApiKey(password);
  if (!isKey && !looksLikeAppPassword(password)) return null;
  const hash = hashToken(password);
  const counted = await countAndAuthenticate(deps.db, [{ bucket: tokenBucket(hash), limit: deps.config.rateLimitPerMinute }], hash, deps.now());
  const rate = counted.decisions[0]!;
  if (!rate.allowed)
    throw new ApiError('rateLimited', `Rate limit of ${rate.limit} requests a minute reached; retry in ${rate.resetSeconds} seconds.`, {
      headers: { 'Retry-After': String(rate.resetSeconds) },
    });
  // The key's or the app password's grant holds over CalDAV as over REST and MCP.
  if (isKey)
    return counted.apiKey
      ? withGrant({ userId: counted.apiKey.userId, via: 'apiKey', clientName: 'CalDAV', tokenId: `key:${counted.apiKey.id}` }, counted.apiKey.grant)
      : null;
  const found = counted.appPassword;
  if (!found) return null;
  await noteAppPasswordUse(deps.db, found.id, deps.now());
  return withGrant({ userId: found.userId, via: 'apiKey', clientName: `CalDAV (${found.name})`, tokenId: `app:${found.id}` }, found.grant);
}
