import type { Knex } from 'knex';

/**
 * list_items without a filter reads a list's open items in its default order (due date, then
 * creation). Without an index in that order Postgres read and sorted every item of the list,
 * a cost that grew with the list; with it, the first page is 50 index entries whatever the
 * list's size (bench/README.md).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX items_open_order_idx ON items (list_id, due_at ASC NULLS LAST, created_at, created_seq)
    WHERE deleted_at IS NULL AND archived_at IS NULL AND is_template = false`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS items_open_order_idx');
}
