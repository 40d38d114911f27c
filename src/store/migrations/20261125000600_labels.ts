import type { Knex } from 'knex';

/** Free labels on items (src/domain/items/labels.ts), with an index for the person's catalogue and the label filter. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('items', (t) => {
    t.specificType('labels', 'text[]').notNullable().defaultTo('{}');
  });
  await knex.raw(`CREATE INDEX items_labels_idx ON items USING gin (labels) WHERE deleted_at IS NULL AND labels <> '{}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS items_labels_idx');
  await knex.schema.alterTable('items', (t) => {
    t.dropColumn('labels');
  });
}
