import type { Knex } from 'knex';

/**
 * Imports (src/domain/transfer/imports.ts): one row per import, holding its plan until the job has
 * written it, its progress and what it did per list.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('imports', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('format').notNullable();
    // queued → running → succeeded | partial | failed
    t.text('status').notNullable().defaultTo('queued');
    // The lists and items to write; cleared once the import has ended.
    t.jsonb('plan');
    t.integer('total').notNullable();
    t.integer('done').notNullable().defaultTo(0);
    // Per list: name, listId, status (pending, imported, failed), created, updated, error.
    t.jsonb('lists').notNullable().defaultTo('[]');
    t.jsonb('warnings').notNullable().defaultTo('[]');
    // Who started it, for the activity log.
    t.text('client_name');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX imports_owner_idx ON imports (owner_id, created_at DESC)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('imports');
}
