import type { Knex } from 'knex';

/**
 * One index for filters on any property of any list: a GIN index (jsonb_path_ops) over the
 * live items' `values`, which serves a containment test such as `"values" @> '{"p_state": "o_read"}'`.
 * query_items and list_items add that test to an equality filter on a select or text
 * property (src/domain/query/where.ts), so counting and summing the items with one option reads
 * the rows that have it rather than every row of the list.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX items_values_idx ON items USING gin ("values" jsonb_path_ops) WHERE deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS items_values_idx');
}
