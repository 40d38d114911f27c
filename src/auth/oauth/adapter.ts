/**
 * oidc-provider's storage on Postgres: one row per model instance in `oauth_payloads`, so
 * registered clients, grants, codes and refresh tokens survive restarts and are shared by
 * every process on the database.
 * The contract is oidc-provider's example adapter (example/my_adapter.js in its repository).
 *
 * Models whose id is itself a credential (codes, refresh tokens, registration tokens…) are
 * stored under the SHA-256 of the id, and their payload without the id (`jti`): a copy of the
 * table redeems nothing. The library finds them by the id it was given, so `find` hashes it and
 * puts it back into the payload. Sessions and interactions stay as they are: the library also
 * finds them by `uid`, which gives no id to put back, and they are short-lived and useless
 * without the browser's other cookies.
 */
import type { Knex } from 'knex';
import { endSubscriptionsOf } from '../../domain/changes/subscriptions.js';
import { hashToken } from '../../domain/accounts/api-keys.js';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';

/** Models whose rows belong to a grant and go when the grant is revoked. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);

/** Models whose id is a bearer credential, found by id only: stored hashed (see above). */
export const HASHED_MODELS = new Set([
  'AuthorizationCode',
  'RefreshToken',
  'AccessToken',
  'ClientCredentials',
  'InitialAccessToken',
  'RegistrationAccessToken',
  'PushedAuthorizationRequest',
]);

/**
 * A dynamically registered client that nobody approved within this time is dropped, so that
 * anonymous registrations cannot pile up; approving a client clears the expiry
 * ({@link keepClient}).
 */
export const UNAPPROVED_CLIENT_TTL_SECONDS = 7 * 24 * 3600;

interface Row {
  payload: AdapterPayload;
  consumed_at: Date | null;
}

export class PostgresAdapter implements Adapter {
  private readonly hashed: boolean;

  constructor(
    private readonly db: Knex,
    private readonly model: string,
  ) {
    this.hashed = HASHED_MODELS.has(model);
  }

  /** The row id of a model instance: the SHA-256 of a credential, other ids as they are. */
  private key(id: string): string {
    return this.hashed ? hashToken(id) : id;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    if (this.hashed) {
      const { jti: _jti, ...rest } = payload;
      payload = rest;
    }
    const ttl = expiresIn ?? (this.model === 'Client' ? UNAPPROVED_CLIENT_TTL_SECONDS : undefined);
    const expiresAt = ttl === undefined ? null : new Date(Date.now() + ttl * 1000);
    const row = {
      model: this.model,
      id: this.key(id),
      payload: JSON.stringify(payload),
      grant_id: GRANTABLE.has(this.model) ? (payload.grantId ?? null) : null,
      uid: payload.uid ?? null,
      user_code: payload.userCode ?? null,
      account_id: payload.accountId ?? null,
      expires_at: expiresAt,
      consumed_at: null,
    };
    const query = this.db('oauth_payloads').insert(row).onConflict(['model', 'id']);
    // A client's expiry is cleared on approval; re-saving its metadata must not bring it back.
    if (this.model === 'Client') {
      await query.merge({ payload: row.payload });
    } else {
      await query.merge(['payload', 'grant_id', 'uid', 'user_code', 'account_id', 'expires_at', 'consumed_at']);
    }
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const payload = await this.findWhere({ id: this.key(id) });
    return payload && this.hashed ? { ...payload, jti: id } : payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere({ uid });
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findWhere({ user_code: userCode });
  }

  /**
   * Marks a code or refresh token used, atomically: of two redemptions racing, one wins and the
   * other finds it consumed, which is treated as reuse: the whole grant is revoked and the
   * request refused (invalid_grant), as for a replayed refresh token.
   */
  async consume(id: string): Promise<void> {
    const won = (await this.db('oauth_payloads')
      .where({ model: this.model, id: this.key(id) })
      .whereNull('consumed_at')
      .update({ consumed_at: this.db.fn.now() })
      .returning('grant_id')) as { grant_id: string | null }[];
    if (won.length > 0) return;
    const row = (await this.db('oauth_payloads')
      .where({ model: this.model, id: this.key(id) })
      .first('grant_id')) as { grant_id: string | null } | undefined;
    if (row?.grant_id) {
      const grantId = row.grant_id;
      // The grant's codes and tokens, and the grant itself (access tokens are checked against it).
      await this.db('oauth_payloads').where({ grant_id: grantId }).orWhere({ model: 'Grant', id: grantId }).delete();
      await endSubscriptionsOf(this.db, null, `grant:${grantId}`);
    }
    throw new errors.InvalidGrant('this code or refresh token was already used; the connection is revoked: sign in again');
  }

  async destroy(id: string): Promise<void> {
    await this.db('oauth_payloads')
      .where({ model: this.model, id: this.key(id) })
      .delete();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db('oauth_payloads').where({ model: this.model, grant_id: grantId }).delete();
  }

  private async findWhere(where: Record<string, string>): Promise<AdapterPayload | undefined> {
    const row = (await this.db('oauth_payloads')
      .where({ model: this.model, ...where })
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', this.db.fn.now()))
      .first('payload', 'consumed_at')) as Row | undefined;
    if (!row) return undefined;
    if (Math.random() < 0.01) void sweepExpired(this.db);
    return row.consumed_at ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : row.payload;
  }
}

/** The adapter factory oidc-provider calls once per model. */
export function postgresAdapter(db: Knex): (model: string) => Adapter {
  return (model) => new PostgresAdapter(db, model);
}

/** Marks a client as approved by a person, so its registration no longer expires. */
export async function keepClient(db: Knex, clientId: string): Promise<void> {
  await db('oauth_payloads').where({ model: 'Client', id: clientId }).whereNotNull('expires_at').update({ expires_at: null });
}

async function sweepExpired(db: Knex): Promise<void> {
  await db('oauth_payloads')
    .where('expires_at', '<', db.raw("now() - interval '1 hour'"))
    .delete()
    .catch(() => undefined);
}
