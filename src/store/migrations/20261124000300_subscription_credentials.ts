import type { Knex } from 'knex';

/**
 * Each event subscription remembers the credential that made it (`key:<api key id>` or
 * `grant:<OAuth grant id>`), so it ends with that credential: a replaced or revoked key, a
 * disconnected app. MCP subscriptions already recorded theirs as `client_key`; REST ones made
 * before this migration have none and stay until removed on the Connections page.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table event_subscriptions add column credential text');
  await knex.raw(`update event_subscriptions set credential = client_key where via = 'mcp'`);
  await knex.raw('create index event_subscriptions_credential_idx on event_subscriptions (user_id, credential)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table event_subscriptions drop column credential');
}
