import type { Knex } from 'knex';

/**
 * Keeping the search index in step with the items table (src/search/sync.ts, src/search/reindex.ts):
 * - `search_state`: small named records of the indexer: which backend and embedder built the index, and the
 *   checkpoint of an interrupted `listkeeper search reindex`, so it continues where it stopped;
 * - a list rename writes an outbox 'item' row for each live item on the list, because every passage carries its
 *   list's name (it is matched, and it prefixes the embedded text), exactly as an item write does. A trigger, like
 *   items_outbox, so no code path that renames a list can forget it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table search_state (
      key text primary key,
      value jsonb not null,
      updated_at timestamptz not null default now()
    )`);
  await knex.raw(`
    create function lists_rename_outbox() returns trigger language plpgsql as $$
    begin
      insert into outbox (topic, subject_id, payload)
      select 'item', i.id, jsonb_build_object('op', 'list', 'ownerId', i.owner_id)
        from items i
       where i.list_id = new.id and i.deleted_at is null;
      return null;
    end $$`);
  await knex.raw(`
    create trigger lists_rename_outbox after update of name on lists
      for each row when (old.name is distinct from new.name) execute function lists_rename_outbox()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists lists_rename_outbox on lists');
  await knex.raw('drop function if exists lists_rename_outbox()');
  await knex.raw('drop table if exists search_state');
}
