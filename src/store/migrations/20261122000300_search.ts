import type { Knex } from 'knex';

/**
 * Search passages on plain Postgres (no pgvector): one row per passage of an item, with
 * - `tsv`: title weighted A above body B, built with unaccent at write time (unaccent is not immutable, so no generated column);
 * - `embedding`: the passage vector as real[] (stored out of line, read only for reranking) and `embedding_bits`, its
 *   sign bits, which Postgres compares natively (xor + bit_count) to shortlist semantic candidates fast;
 * - `search_words`: the vocabulary seen so far, trigram-indexed, used to correct typos in query words.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pg_trgm');
  await knex.raw('create extension if not exists unaccent');
  await knex.raw(`
    create table search_passages (
      item_id uuid not null,
      passage_no int not null,
      owner_id uuid not null,
      reader_ids uuid[] not null,
      list_id uuid not null,
      list_name text not null,
      title text not null default '',
      text text not null,
      tsv tsvector not null,
      embedding real[],
      embedding_bits bit varying,
      created_at timestamptz not null,
      primary key (item_id, passage_no)
    )`);
  // Vectors are only read for the few shortlisted rows; keeping them out of line keeps the rows that scans touch small.
  await knex.raw('alter table search_passages alter column embedding set storage external');
  await knex.raw('create index search_passages_tsv on search_passages using gin (tsv)');
  await knex.raw('create index search_passages_readers on search_passages using gin (reader_ids)');
  await knex.raw('create index search_passages_title_trgm on search_passages using gin (title gin_trgm_ops)');
  await knex.raw(`
    create table search_words (
      word text primary key
    )`);
  await knex.raw('create index search_words_trgm on search_words using gin (word gin_trgm_ops)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists search_words');
  await knex.raw('drop table if exists search_passages');
}
