import type { Knex } from 'knex';

/**
 * `embedder` on search_passages: the embedder that made the row's vector (its name, as recorded in search_state
 * 'index'). A search compares a passage only with a query vector of the same model, so a rebuild after a model
 * change never compares one model's vectors with another's, even when they have the same size.
 * Rows written before this column are the recorded embedder's when the index was fully built by it; when a rebuild
 * is unfinished their model is unknown, so they stay without one (found by their words only until rebuilt).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table search_passages add column embedder text');
  await knex.raw(`
    update search_passages set embedder = (select value->>'embedder' from search_state where key = 'index')
     where embedding is not null
       and not exists (select 1 from search_state where key = 'reindex:all')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table search_passages drop column embedder');
}
