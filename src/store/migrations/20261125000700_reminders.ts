import type { Knex } from 'knex';

/**
 * Reminders (src/domain/items/reminders.ts): a reminder set relative to the due date keeps its
 * offset, so it moves with the due date; `reminded_at` marks the reminder time last sent.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('items', (t) => {
    t.integer('reminder_offset_minutes');
    t.timestamp('reminded_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX items_reminder_idx ON items (reminder_at) WHERE reminder_at IS NOT NULL AND deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS items_reminder_idx');
  await knex.schema.alterTable('items', (t) => {
    t.dropColumn('reminder_offset_minutes');
    t.dropColumn('reminded_at');
  });
}
