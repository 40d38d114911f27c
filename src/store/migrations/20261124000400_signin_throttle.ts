import type { Knex } from 'knex';

/** Failed sign-ins counted by rate-limiter-flexible (its table layout), per account and per address. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE UNLOGGED TABLE signin_throttle (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS signin_throttle');
}
