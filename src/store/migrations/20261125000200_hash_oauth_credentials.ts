import type { Knex } from 'knex';

/**
 * OAuth credentials stored hashed: the rows of codes, refresh tokens and the other models
 * whose id is a credential (HASHED_MODELS in src/auth/oauth/adapter.ts) are keyed by the
 * SHA-256 of that id from now on, and their payload no longer holds it (`jti`). Existing rows
 * are converted in place, so connected apps keep working.
 */
const MODELS = [
  'AuthorizationCode',
  'RefreshToken',
  'AccessToken',
  'ClientCredentials',
  'InitialAccessToken',
  'RegistrationAccessToken',
  'PushedAuthorizationRequest',
];

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE oauth_payloads SET id = encode(sha256(convert_to(id, 'UTF8')), 'hex'), payload = payload - 'jti' WHERE model = ANY (?::text[])`, [
    MODELS,
  ]);
}

/** A hash cannot be turned back into its token: going back signs those apps out (their rows go). */
export async function down(knex: Knex): Promise<void> {
  await knex('oauth_payloads').whereIn('model', MODELS).delete();
}
