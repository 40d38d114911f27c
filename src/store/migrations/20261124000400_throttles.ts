import type { Knex } from 'knex';

/** Counts of rate-limiter-flexible (its table layout): failed sign-ins per account and address, client registrations per address. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE UNLOGGED TABLE throttles (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS throttles');
}
