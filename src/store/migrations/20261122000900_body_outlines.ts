import type { Knex } from 'knex';

/**
 * Block outlines of long bodies (src/domain/bodyOutlines.ts): the parse a read for editing
 * needs, stored so that no process parses the same long body twice. A cache: a row is used
 * only while its `body_sha256` matches the item's body, and losing it costs one parse.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('body_outlines', (t) => {
    t.uuid('item_id').primary().references('items.id').onDelete('CASCADE');
    t.text('body_sha256').notNullable();
    t.text('outline').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('body_outlines');
}
