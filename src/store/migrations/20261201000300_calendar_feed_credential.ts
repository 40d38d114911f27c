import type { Knex } from 'knex';

/**
 * The credential that made a calendar feed, when a connection with a grant made it
 * (src/domain/transfer/calendar-feed.ts): the feed serves what that credential reaches now.
 * Null, as for every feed made before, serves every list.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calendar_feeds', (t) => t.text('credential'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('calendar_feeds', (t) => t.dropColumn('credential'));
}
