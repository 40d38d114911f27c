import type { Knex } from 'knex';

/**
 * A chat `messageKey` belongs to its author: the same key from another author (another
 * account's agent, a sharee, or the service's automation results) is another message, never an
 * update of this one. The unique key of keyed messages gains the author kind and account.
 */
export const AUTHOR_KEY = `(item_id, author_kind, coalesce(author_user_id, '00000000-0000-0000-0000-000000000000'::uuid), message_key) WHERE message_key IS NOT NULL`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS chat_messages_key');
  await knex.raw(`CREATE UNIQUE INDEX chat_messages_author_key ON chat_messages ${AUTHOR_KEY}`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS chat_messages_author_key');
  await knex.raw('CREATE UNIQUE INDEX chat_messages_key ON chat_messages (item_id, message_key) WHERE message_key IS NOT NULL');
}
