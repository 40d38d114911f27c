import type { Knex } from 'knex';

/**
 * Recurring tasks (src/domain/items/recurrence.ts): the rule a task repeats by (RRULE text), how
 * many times it was completed, and when last.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('items', (t) => {
    t.text('recurrence');
    t.integer('recurrence_completions').notNullable().defaultTo(0);
    t.timestamp('last_completed_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('items', (t) => {
    t.dropColumn('recurrence');
    t.dropColumn('recurrence_completions');
    t.dropColumn('last_completed_at');
  });
}
