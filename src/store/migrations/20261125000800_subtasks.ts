import type { Knex } from 'knex';

/**
 * Subtasks (src/domain/items/subtasks.ts): an item's parent on the same list (one level), and the
 * parent a subtask went to the trash with, so restoring the parent brings back exactly those.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('items', (t) => {
    t.uuid('parent_id').references('items.id').onDelete('SET NULL');
    t.uuid('deleted_with_parent');
  });
  await knex.raw('CREATE INDEX items_parent_idx ON items (parent_id) WHERE parent_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS items_parent_idx');
  await knex.schema.alterTable('items', (t) => {
    t.dropColumn('parent_id');
    t.dropColumn('deleted_with_parent');
  });
}
