import type { Knex } from 'knex';

/**
 * Rate-limit counters skip the write-ahead log: every request updates one or two of them, and
 * a logged update makes each request wait for a WAL flush at commit. An unlogged table is
 * emptied after a crash of Postgres, which for one-minute counters only forgives part of a
 * minute's requests. (Unlogged tables are not copied to streaming replicas: the limit is kept
 * by the primary the service writes to, as before.)
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE rate_limits SET UNLOGGED');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE rate_limits SET LOGGED');
}
