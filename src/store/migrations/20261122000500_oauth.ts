import type { Knex } from 'knex';

/**
 * The OAuth authorization server's storage and the web pages' sessions:
 * - `oauth_payloads`: every oidc-provider model (clients, grants, codes, refresh tokens,
 *   interactions, provider sessions) keyed by model and id, with the columns its adapter
 *   looks things up by (src/auth/oauth/adapter.ts);
 * - `oauth_keys`: the ES256 signing keys and the cookie-signing secrets, newest first in use
 *   (src/auth/oauth/keys.ts);
 * - `sessions`: signed-in browsers of the web pages, by the SHA-256 of the cookie value
 *   (src/web/sessions.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('oauth_payloads', (t) => {
    t.text('model').notNullable();
    t.text('id').notNullable();
    t.jsonb('payload').notNullable();
    t.text('grant_id');
    t.text('uid');
    t.text('user_code');
    t.text('account_id');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('consumed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['model', 'id']);
  });
  await knex.raw('CREATE INDEX oauth_payloads_grant_idx ON oauth_payloads (grant_id) WHERE grant_id IS NOT NULL');
  await knex.raw('CREATE INDEX oauth_payloads_uid_idx ON oauth_payloads (model, uid) WHERE uid IS NOT NULL');
  await knex.raw('CREATE INDEX oauth_payloads_user_code_idx ON oauth_payloads (model, user_code) WHERE user_code IS NOT NULL');
  await knex.raw('CREATE INDEX oauth_payloads_account_idx ON oauth_payloads (model, account_id) WHERE account_id IS NOT NULL');
  await knex.raw('CREATE INDEX oauth_payloads_expiry_idx ON oauth_payloads (expires_at) WHERE expires_at IS NOT NULL');

  await knex.schema.createTable('oauth_keys', (t) => {
    t.text('kid').primary();
    // 'sig': a private ES256 JWK; 'cookie': {"secret": "..."} for signing cookies.
    t.text('use').notNullable();
    t.jsonb('material').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE oauth_keys ADD CONSTRAINT oauth_keys_use CHECK (use IN ('sig', 'cookie'))`);

  await knex.schema.createTable('sessions', (t) => {
    t.text('id').primary();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    // The OAuth interaction whose "sign in again" (prompt=login, max_age) this sign-in answered.
    t.text('fresh_for');
  });
  await knex.raw('CREATE INDEX sessions_user_idx ON sessions (user_id)');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['sessions', 'oauth_keys', 'oauth_payloads']) await knex.schema.dropTableIfExists(table);
}
