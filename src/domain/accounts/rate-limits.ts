/**
 * Request counting for the rate limits: a fixed one-minute window per bucket, counted in
 * Postgres so that every server process on one database enforces one limit, in the statement
 * that also finds the request's API key or app password. The koa middleware that applies them
 * is src/auth/rate-limit.ts (per address) and src/auth/guard.ts (per token and address).
 */
import type { Knex } from 'knex';
import { preparedRaw } from '../../store/prepared.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** Counts one request against `bucket` and says whether it may pass. */
export async function countRequest(db: Knex, bucket: string, limit: number, now: Date = new Date()): Promise<RateDecision> {
  const { decisions } = await countAndAuthenticate(db, [{ bucket, limit }], null, now);
  return decisions[0]!;
}

/** An API key or app password whose hash the counting statement found. */
export interface FoundCredential {
  id: string;
  userId: string;
  /** The grant it was made with, as stored (null: the whole person). */
  grant: unknown;
}

/**
 * The OAuth grant an access token names (its `gid`), as the token's verifier checks it
 * (src/auth/oauth/verify.ts): the grant still exists and is unexpired, its person still
 * exists, with its client's name and what the person allowed the app (`connectionGrant`).
 */
export interface OAuthGrantRow {
  account_id: string | null;
  client_id: string | null;
  client_name: string | null;
  connection_grant: unknown;
}

/** What the counting statement answers: one decision per bucket, in the order given, and what `tokenHash` and `grantId` name. */
export interface Counted {
  decisions: RateDecision[];
  apiKey: FoundCredential | null;
  appPassword: (FoundCredential & { name: string }) | null;
  /** The grant row `grantId` names; null when none does or no grantId was given. */
  oauthGrant: OAuthGrantRow | null;
}

/** The grant-row query of OAuthGrantRow, for a grant id bound at its `?`. */
const OAUTH_GRANT = `SELECT g.account_id, g.payload->>'clientId' AS client_id,
         c.payload->>'client_name' AS client_name,
         -- What the person allowed the app, read on every request so a change in Settings holds at once.
         g.payload->'connectionGrant' AS connection_grant
    FROM oauth_payloads g
    LEFT JOIN oauth_payloads c ON c.model = 'Client' AND c.id = g.payload->>'clientId'
    JOIN users u ON u.id::text = g.account_id
   WHERE g.model = 'Grant' AND g.id = ?::text AND (g.expires_at IS NULL OR g.expires_at > now())`;

/** The grant row an access token names, read alone (the guard reads it within its count: countAndAuthenticate). */
export async function findOAuthGrant(db: Knex, grantId: string): Promise<OAuthGrantRow | null> {
  const result = await preparedRaw<{ rows: OAuthGrantRow[] }>(db, OAUTH_GRANT, [grantId]);
  return result.rows[0] ?? null;
}

/**
 * Counts one request against each bucket and finds the API key and the app password whose
 * hash is `tokenHash` (null: none) and the OAuth grant `grantId` names (null: none), in one
 * statement: an authenticated request costs one round trip before its operation, counts and
 * credential lookup together. `grantId` is read from an access token before its signature is
 * checked, so the row found is only a candidate: the verifier uses it once the token verifies
 * and names that grant.
 *
 * Requests that count the same buckets with the same token while a count of them is on its
 * way to Postgres wait for it and are then counted together, in one statement that adds
 * their number: the i-th of such a group is the (total - n + i)-th request of the window, as
 * if each had run its own statement in arrival order. The limit stays exact across processes
 * (every request is in Postgres's count before it is answered), and under concurrent load
 * from one token a request costs a fraction of a round trip instead of one
 * (bench/README.md). A lone request runs at once.
 */
export function countAndAuthenticate(
  db: Knex,
  buckets: { bucket: string; limit: number }[],
  tokenHash: string | null,
  now: Date = new Date(),
  grantId: string | null = null,
): Promise<Counted> {
  const windowStart = Math.floor(now.getTime() / 60000) * 60000;
  const sorted = [...new Set(buckets.map((b) => b.bucket))].sort();
  const key = `${windowStart}\n${sorted.join('\n')}\n${tokenHash ?? ''}\n${grantId ?? ''}`;
  return new Promise((resolve, reject) => {
    const waiter: Waiter = { buckets, now, resolve, reject };
    let lanes = lanesByDb.get(db);
    if (!lanes) lanesByDb.set(db, (lanes = new Map()));
    const lane = lanes.get(key);
    if (lane) {
      lane.waiting.push(waiter);
      return;
    }
    const fresh: Lane = { waiting: [] };
    lanes.set(key, fresh);
    void drain(db, lanes, key, fresh, [waiter], { windowStart: new Date(windowStart), sorted, tokenHash, grantId });
  });
}

interface Waiter {
  buckets: { bucket: string; limit: number }[];
  now: Date;
  resolve(counted: Counted): void;
  reject(err: unknown): void;
}

/** The requests waiting for a count of one set of buckets already on its way. */
interface Lane {
  waiting: Waiter[];
}

const lanesByDb = new WeakMap<Knex, Map<string, Lane>>();

/** Counts `group`, then whoever came meanwhile, until nobody waits. */
async function drain(
  db: Knex,
  lanes: Map<string, Lane>,
  key: string,
  lane: Lane,
  first: Waiter[],
  statement: { windowStart: Date; sorted: string[]; tokenHash: string | null; grantId: string | null },
): Promise<void> {
  let group = first;
  while (group.length > 0) {
    try {
      const row = await countGroup(db, statement, group.length);
      const apiKey = row.key_id ? { id: row.key_id, userId: row.key_user_id!, grant: row.key_grant } : null;
      const appPassword = row.password_id ? { id: row.password_id, userId: row.password_user_id!, name: row.password_name!, grant: row.password_grant } : null;
      group.forEach((waiter, i) => {
        const resetSeconds = Math.max(1, Math.ceil((statement.windowStart.getTime() + 60000 - waiter.now.getTime()) / 1000));
        const decisions = waiter.buckets.map(({ bucket, limit }) => {
          const count = row.counts[bucket]! - group.length + 1 + i;
          return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds };
        });
        waiter.resolve({ decisions, apiKey, appPassword, oauthGrant: row.grant_found ? grantRowOf(row) : null });
      });
    } catch (err) {
      for (const waiter of group) waiter.reject(err);
    }
    group = lane.waiting;
    lane.waiting = [];
  }
  lanes.delete(key);
}

interface CountedRow {
  counts: Record<string, number>;
  key_id: string | null;
  key_user_id: string | null;
  key_grant: unknown;
  password_id: string | null;
  password_user_id: string | null;
  password_name: string | null;
  password_grant: unknown;
  grant_found: boolean;
  account_id: string | null;
  client_id: string | null;
  client_name: string | null;
  connection_grant: unknown;
}

function grantRowOf(row: CountedRow): OAuthGrantRow {
  return { account_id: row.account_id, client_id: row.client_id, client_name: row.client_name, connection_grant: row.connection_grant };
}

/**
 * One statement adding `n` to each bucket's count (rows locked in bucket order, so concurrent
 * counts never wait on each other in a cycle) and reading the API key and the app password of
 * `tokenHash` and the OAuth grant of `grantId`. A hash names at most one of them; a caller
 * takes only the kind it accepts.
 */
const COUNT_AND_AUTHENTICATE = `WITH counted AS (
    INSERT INTO rate_limits (bucket, window_start, count)
    SELECT b, ?::timestamptz, ?::int FROM unnest(?::text[]) WITH ORDINALITY AS u(b, n) ORDER BY n
    ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limits.count + EXCLUDED.count
    RETURNING bucket, count
  )
  SELECT (SELECT json_object_agg(bucket, count) FROM counted) AS counts,
         k.id AS key_id, k.user_id AS key_user_id, k."grant" AS key_grant,
         p.id AS password_id, p.user_id AS password_user_id, p.name AS password_name, p."grant" AS password_grant,
         og.account_id IS NOT NULL AS grant_found, og.account_id, og.client_id, og.client_name, og.connection_grant
  FROM (SELECT ?::text AS hash) AS token
  LEFT JOIN api_keys k ON k.key_hash = token.hash
  LEFT JOIN app_passwords p ON p.password_hash = token.hash
  LEFT JOIN LATERAL (${OAUTH_GRANT}) og ON true`;

async function countGroup(
  db: Knex,
  statement: { windowStart: Date; sorted: string[]; tokenHash: string | null; grantId: string | null },
  n: number,
): Promise<CountedRow> {
  const { windowStart, sorted, tokenHash, grantId } = statement;
  const result = await preparedRaw<{ rows: CountedRow[] }>(db, COUNT_AND_AUTHENTICATE, [windowStart, n, sorted, tokenHash, grantId]);
  if (Math.random() < 0.01) void sweepOldWindows(db, windowStart);
  return result.rows[0]!;
}

/** The bucket of a bearer token, from its hashToken; never the token itself. */
export function tokenBucket(tokenHash: string): string {
  return `t:${tokenHash.slice(0, 40)}`;
}

async function sweepOldWindows(db: Knex, current: Date): Promise<void> {
  await db('rate_limits')
    .where('window_start', '<', new Date(current.getTime() - 120000))
    .delete()
    .catch(() => undefined);
}
