import type { Knex } from 'knex';

/**
 * Outbox rows by topic in id order: the search index's lane and the lane of every other topic
 * (src/jobs/outbox.ts, startOutboxLanes) each take their next rows by topic, so a backlog of one
 * topic (an import's thousands of items waiting for search) is not read through by the other.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX outbox_topic_idx ON outbox (topic, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS outbox_topic_idx');
}
