import type { Knex } from 'knex';

/**
 * The typo vocabulary per reader: a word is offered as a correction only to someone who can
 * read an item holding it (whether a misspelling gets corrected must tell nobody what another
 * account wrote). The shared vocabulary is emptied and the search index marked for a full
 * rebuild, which the server runs in the background at its next start and which fills the new
 * vocabulary.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('truncate search_words');
  await knex.raw('alter table search_words drop constraint search_words_pkey');
  await knex.raw('alter table search_words add column reader_id uuid not null');
  await knex.raw('alter table search_words add primary key (reader_id, word)');
  await knex.raw(`delete from search_state where key = 'index'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('truncate search_words');
  await knex.raw('alter table search_words drop constraint search_words_pkey');
  await knex.raw('alter table search_words drop column reader_id');
  await knex.raw('alter table search_words add primary key (word)');
}
