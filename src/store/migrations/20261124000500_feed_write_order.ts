import type { Knex } from 'knex';

/**
 * The changes feed hands out one write's changes in the order the write made them: every
 * write stamps its row with the next `change_seq` beside `change_txid`, and the sequencer
 * (src/domain/changes/feed.ts) positions a transaction's rows in that order. Before, they came in
 * the order the items were created, whatever order an update wrote them in. Rows written
 * before this migration have no stamp and keep that older order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE SEQUENCE items_change_seq');
  await knex.raw('ALTER TABLE items ADD COLUMN change_seq bigint');
  await knex.raw(stampChange(true));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(stampChange(false));
  await knex.raw('ALTER TABLE items DROP COLUMN IF EXISTS change_seq');
  await knex.raw('DROP SEQUENCE IF EXISTS items_change_seq');
}

/** The trigger function of migration 20261122000100_core, with or without the write-order stamp. */
function stampChange(withSeq: boolean): string {
  return `
    CREATE OR REPLACE FUNCTION items_stamp_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('listkeeper.sequencing', true) = 'on' THEN RETURN NEW; END IF;
      NEW.change_txid := pg_current_xact_id();${withSeq ? "\n      NEW.change_seq := nextval('items_change_seq');" : ''}
      NEW.feed_seq := NULL;
      NEW.feed_at := NULL;
      RETURN NEW;
    END $$`;
}
