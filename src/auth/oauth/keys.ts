/**
 * The authorization server's secrets, kept in Postgres (`oauth_keys`) so that every process
 * signs and verifies with the same ones and a restart keeps sessions and tokens valid:
 * - ES256 signing keys (private JWKs): the newest signs, all of them verify;
 * - cookie secrets: the newest signs cookies, all of them verify (Keygrip order).
 * Generated on first start; `listkeeper oauth rotate-keys` adds new ones and
 * `listkeeper oauth retire-keys` drops the old ones (docs/auth.md, "Key rotation").
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';

export type KeyUse = 'sig' | 'cookie';

export interface KeyRow {
  kid: string;
  use: KeyUse;
  material: Record<string, unknown>;
  created_at: Date;
}

export interface AuthKeys {
  /** Private ES256 JWKs, newest first (the first one signs). */
  signing: JWK[];
  /** Cookie secrets, newest first (the first one signs). */
  cookie: string[];
}

/** Transaction-level advisory lock so that two processes starting at once create one key set. */
const LOCK = "hashtext('listkeeper.oauth_keys')";

/** Loads the keys, creating the first signing key and cookie secret if there are none. */
export async function loadOrCreateKeys(db: Knex): Promise<AuthKeys> {
  const existing = await readKeys(db);
  if (existing.signing.length > 0 && existing.cookie.length > 0) return existing;
  return db.transaction(async (trx) => {
    await trx.raw(`SELECT pg_advisory_xact_lock(${LOCK})`);
    const keys = await readKeys(trx);
    if (keys.signing.length === 0) await insertKey(trx, 'sig');
    if (keys.cookie.length === 0) await insertKey(trx, 'cookie');
    return readKeys(trx);
  });
}

/** Reads every key, newest first. */
export async function readKeys(db: Knex): Promise<AuthKeys> {
  const rows = (await db('oauth_keys').orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'kid', order: 'desc' },
  ])) as KeyRow[];
  return {
    signing: rows.filter((r) => r.use === 'sig').map((r) => r.material as JWK),
    cookie: rows.filter((r) => r.use === 'cookie').map((r) => String(r.material.secret)),
  };
}

/** The public half of the signing keys: what tokens are verified against. */
export function publicJwks(keys: AuthKeys): JWK[] {
  return keys.signing.map(({ kty, crv, x, y, kid, alg, use }) => ({ kty, crv, x, y, kid, alg, use }));
}

/** Adds a new signing key and cookie secret; processes use them after their next start. */
export async function rotateKeys(db: Knex): Promise<{ signingKid: string; cookieKid: string }> {
  return db.transaction(async (trx) => {
    await trx.raw(`SELECT pg_advisory_xact_lock(${LOCK})`);
    return { signingKid: await insertKey(trx, 'sig'), cookieKid: await insertKey(trx, 'cookie') };
  });
}

/**
 * Deletes every signing key and cookie secret but the newest of each. Refused while the
 * newest signing key is younger than `minAgeSeconds` (default: one access-token lifetime),
 * since tokens signed by an older key may still be live.
 */
export async function retireKeys(db: Knex, minAgeSeconds = 3600, now: Date = new Date()): Promise<{ retired: string[] }> {
  return db.transaction(async (trx) => {
    await trx.raw(`SELECT pg_advisory_xact_lock(${LOCK})`);
    const rows = (await trx('oauth_keys').orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'kid', order: 'desc' },
    ])) as KeyRow[];
    const newestSig = rows.find((r) => r.use === 'sig');
    const newestCookie = rows.find((r) => r.use === 'cookie');
    if (newestSig && now.getTime() - newestSig.created_at.getTime() < minAgeSeconds * 1000) {
      throw new Error(
        `The newest signing key (${newestSig.kid}) is younger than ${minAgeSeconds} seconds; access tokens signed by older keys may still be live. ` +
          'Restart every process, wait one hour, then retire.',
      );
    }
    const retired = rows.filter((r) => r !== newestSig && r !== newestCookie).map((r) => r.kid);
    if (retired.length > 0) await trx('oauth_keys').whereIn('kid', retired).delete();
    return { retired };
  });
}

async function insertKey(db: Knex, use: KeyUse): Promise<string> {
  if (use === 'sig') {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(jwk);
    await db('oauth_keys').insert({ kid, use, material: JSON.stringify({ ...jwk, kid, alg: 'ES256', use: 'sig' }), created_at: db.raw('clock_timestamp()') });
    return kid;
  }
  const kid = `cookie-${randomBytes(6).toString('hex')}`;
  await db('oauth_keys').insert({
    kid,
    use,
    material: JSON.stringify({ secret: randomBytes(32).toString('base64url') }),
    created_at: db.raw('clock_timestamp()'),
  });
  return kid;
}
