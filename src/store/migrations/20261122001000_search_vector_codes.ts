import type { Knex } from 'knex';

/**
 * `embedding_code`: each passage vector as a one-byte-a-dimension code (src/search/vector-codes.ts),
 * which search reranks in Node instead of computing cosines over real[] in SQL. Rows written before
 * this migration have none and are reranked in SQL as before until they are indexed again (an edit,
 * or `listkeeper search reindex`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table search_passages add column embedding_code bytea');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table search_passages drop column embedding_code');
}
