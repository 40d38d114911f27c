import type { Knex } from 'knex';

/**
 * Tallies kept in place (issue 39, bench/README.md): the triggers on items add each write's
 * change to its option's row of `value_tallies` in the writer's transaction, under the list's
 * lock, instead of appending deltas for a job to fold; a select property registered with
 * values already there (a retype to select, an import, which writes its items before the
 * list's properties) is counted from item_values by the registration itself. Gone: the deltas,
 * the fold, the build and its wait on transaction ids, and `ready`/`waits_for`.
 *
 * The list's lock is what makes a registration exact: every write that can change a figure
 * holds its list FOR SHARE from its trigger on (the writers that change values hold it FOR
 * UPDATE already), whether or not the list has a select yet, and a registration comes from a
 * change of the list's row, which waits for them. Either the writer's trigger waited for the
 * registration, and its next statement sees it, or the registration waited for the writer,
 * and its count sees the write.
 */
const propertiesOf = (properties: string) => `jsonb_array_elements(CASE WHEN jsonb_typeof(${properties}) = 'array' THEN ${properties} ELSE '[]'::jsonb END)`;

/** Adds `select`'s rows (generation, text_value, summed, archived, n, total, unique) to the figures. */
const addTo = (select: string) => `INSERT INTO value_tallies AS v (generation, text_value, summed, archived, n, total)
      ${select}
      ORDER BY 1, 2, 3, 4
      ON CONFLICT (generation, text_value, summed, archived) DO UPDATE SET n = v.n + EXCLUDED.n, total = v.total + EXCLUDED.total`;

/** The figures of the registrations in `registrations` (generation, list_id, property_id), counted from item_values. */
const countedFrom = (registrations: string) => `SELECT r.generation, f.text_value, ''::text, f.archived, count(*), 0::numeric
        FROM ${registrations} r JOIN item_values f ON f.list_id = r.list_id AND f.property_id = r.property_id AND f.text_value IS NOT NULL
       GROUP BY 1, 2, 3, 4
      UNION ALL
      SELECT r.generation, f.text_value, s.property_id, f.archived, count(*), sum(s.num_value)
        FROM ${registrations} r JOIN item_values f ON f.list_id = r.list_id AND f.property_id = r.property_id AND f.text_value IS NOT NULL
        JOIN item_values s ON s.item_id = f.item_id AND s.num_value IS NOT NULL
       GROUP BY 1, 2, 3, 4`;

const TRIGGERS = ['items_tallies_inserted', 'items_tallies_deleted', 'items_tallies_updated'];

export async function up(knex: Knex): Promise<void> {
  for (const trigger of TRIGGERS) await knex.raw(`DROP TRIGGER IF EXISTS ${trigger} ON items`);
  for (const trigger of TRIGGERS) await knex.raw(`DROP FUNCTION IF EXISTS ${trigger}()`);
  await knex.raw('DROP TABLE value_tally_deltas');
  await knex.raw('ALTER TABLE tallied_properties DROP COLUMN ready, DROP COLUMN waits_for');
  // Every figure afresh: what was not folded or not built yet is in item_values.
  await knex.raw('DELETE FROM value_tallies');
  await knex.raw(`${addTo(countedFrom('tallied_properties'))}`);

  // New items, many at once (one row per option and figure for the statement), and items
  // deleted outright while live, the same with the sign turned.
  for (const [trigger, event, transition, table, sign] of [
    ['items_tallies_inserted', 'INSERT', 'NEW TABLE', 'new_rows', 1],
    ['items_tallies_deleted', 'DELETE', 'OLD TABLE', 'old_rows', -1],
  ] as const) {
    await knex.raw(`
      CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM lists WHERE id IN (SELECT list_id FROM ${table} WHERE deleted_at IS NULL AND NOT is_template) ORDER BY id FOR SHARE;
        ${addTo(`SELECT c.generation, c.text_value, c.summed, c.archived, sum(c.n), sum(c.total)
          FROM ${table} i, item_tallies(i.list_id, i."values", i.archived_at IS NOT NULL, ${sign}) c
         WHERE i.deleted_at IS NULL AND NOT i.is_template
         GROUP BY 1, 2, 3, 4`)};
        RETURN NULL;
      END $$`);
    await knex.raw(`CREATE TRIGGER ${trigger} AFTER ${event} ON items REFERENCING ${transition} AS ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${trigger}()`);
  }
  // A changed item: the item as it is less the item as it was; what did not move writes nothing.
  await knex.raw(`
    CREATE FUNCTION items_tallies_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM 1 FROM lists WHERE id IN (OLD.list_id, NEW.list_id) ORDER BY id FOR SHARE;
      ${addTo(`SELECT d.generation, d.text_value, d.summed, d.archived, sum(d.n), sum(d.total)
        FROM (
          SELECT c.* FROM item_tallies(OLD.list_id, OLD."values", OLD.archived_at IS NOT NULL, -1) c
           WHERE OLD.deleted_at IS NULL AND NOT OLD.is_template
          UNION ALL
          SELECT c.* FROM item_tallies(NEW.list_id, NEW."values", NEW.archived_at IS NOT NULL, 1) c
           WHERE NEW.deleted_at IS NULL AND NOT NEW.is_template
        ) d
       GROUP BY 1, 2, 3, 4
      HAVING sum(d.n) <> 0 OR sum(d.total) <> 0`)};
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER items_tallies_updated AFTER UPDATE ON items FOR EACH ROW
      WHEN (OLD."values" IS DISTINCT FROM NEW."values" OR OLD.list_id IS DISTINCT FROM NEW.list_id
            OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.archived_at IS DISTINCT FROM NEW.archived_at
            OR OLD.is_template IS DISTINCT FROM NEW.is_template)
      EXECUTE FUNCTION items_tallies_updated()`);

  // The select properties of a list, registered as the list is made or its properties change,
  // and counted at once from item_values (this change of the list's row waits for its writers);
  // one no longer a select is dropped with its figures (tallied_properties_deleted).
  await knex.raw(`
    CREATE OR REPLACE FUNCTION lists_tallied() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      selects text[];
    BEGIN
      SELECT coalesce(array_agg(p->>'id'), '{}') INTO selects
        FROM ${propertiesOf('NEW.properties')} p
       WHERE p->>'type' = 'select';
      IF TG_OP = 'UPDATE' THEN
        DELETE FROM tallied_properties WHERE list_id = NEW.id AND property_id <> ALL (selects);
      END IF;
      WITH added AS (
        INSERT INTO tallied_properties (list_id, property_id)
        SELECT NEW.id, s FROM unnest(selects) s
        ON CONFLICT (list_id, property_id) DO NOTHING
        RETURNING generation, list_id, property_id
      )
      ${addTo(countedFrom('added'))};
      RETURN NULL;
    END $$`);
}

export async function down(): Promise<void> {
  throw new Error('20261201000100_tallies_in_place cannot be undone: restore a backup taken before it.');
}
