import type { Knex } from 'knex';

/**
 * A grant on the API key and on each app password (src/domain/accounts/grants.ts): null, the
 * whole person, as every key made before; an OAuth app's grant is kept on its Grant record.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => t.jsonb('grant'));
  await knex.schema.alterTable('app_passwords', (t) => t.jsonb('grant'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('app_passwords', (t) => t.dropColumn('grant'));
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('grant'));
}
