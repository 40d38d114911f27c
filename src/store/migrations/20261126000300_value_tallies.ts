import type { Knex } from 'knex';

/**
 * Tallies: for each select property of a list, how many live items carry each option, and the
 * sum of each number property over them, kept so that query_items' count and sum with one
 * `eq` on a select cost the same on a list of 100,000 items as on one of 10
 * (src/domain/query/tallies.ts reads, folds and builds them).
 *
 * - `tallied_properties`: the select properties tallied, one row per list and property, kept
 *   by a trigger on `lists` from its `properties`. `generation` names one registration (a
 *   property retyped away and back gets a new one); `ready` is false until the build job has
 *   counted the items there already (a property just added has none, so it starts ready).
 * - `value_tally_deltas`: what each write changed, appended by triggers on `items` in the
 *   write's own transaction: +1/-1 per item and option (`summed` ''), and +n/-n per number
 *   property (`summed` its id). Writers only append, so agents filing items into one list at
 *   once never wait on each other here.
 * - `value_tallies`: the folded figures. The fold job moves deltas in and deletes them in one
 *   statement; a read adds the folded figure and the deltas not yet folded.
 *
 * Figures and deltas are keyed by the registration's generation, option (`text_value`),
 * `summed` and `archived`: a registration dropped and made again never meets the old ones.
 *
 * An item counts while it is live (not in the trash, not a template), under `archived` as it
 * is; the figures are exactly those of item_values, the same values read the same way
 * (item_scalar_values).
 */
/** The properties of a list as rows (none when `properties` is not an array). */
const propertiesOf = (properties: string) => `jsonb_array_elements(CASE WHEN jsonb_typeof(${properties}) = 'array' THEN ${properties} ELSE '[]'::jsonb END)`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE tallied_properties (
      list_id uuid NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
      property_id text NOT NULL,
      generation bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      ready boolean NOT NULL,
      waits_for xid8,
      PRIMARY KEY (list_id, property_id)
    )`);
  await knex.raw(`
    CREATE TABLE value_tallies (
      generation bigint NOT NULL,
      text_value text NOT NULL,
      summed text NOT NULL,
      archived boolean NOT NULL,
      n bigint NOT NULL,
      total numeric NOT NULL,
      PRIMARY KEY (generation, text_value, summed, archived)
    )`);
  await knex.raw(`
    CREATE TABLE value_tally_deltas (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      generation bigint NOT NULL,
      text_value text NOT NULL,
      summed text NOT NULL,
      archived boolean NOT NULL,
      n bigint NOT NULL,
      total numeric NOT NULL
    )`);
  await knex.raw('CREATE INDEX value_tally_deltas_key_idx ON value_tally_deltas (generation, text_value)');

  // One item's part in the tallies of its list: for each tallied property it has an option of,
  // one count row and one row per number it has. `sign` is 1 for the item as it is now, -1 for
  // the item as it was.
  await knex.raw(`
    CREATE FUNCTION item_tallies(p_list uuid, v jsonb, p_archived boolean, sign integer,
      OUT generation bigint, OUT text_value text, OUT summed text, OUT archived boolean, OUT n bigint, OUT total numeric)
      RETURNS SETOF record LANGUAGE sql STABLE AS $$
      SELECT t.generation, s.text_value, m.summed, p_archived, sign::bigint, sign * m.num
        FROM item_scalar_values(v) s
        JOIN tallied_properties t ON t.list_id = p_list AND t.property_id = s.property_id
        CROSS JOIN LATERAL (
          SELECT ''::text AS summed, 0::numeric AS num
          UNION ALL
          SELECT x.property_id, x.num_value FROM item_scalar_values(v) x WHERE x.num_value IS NOT NULL
        ) m
       WHERE s.text_value IS NOT NULL
    $$`);
  // New items, many at once: one delta per option and figure, whatever the number of items;
  // items deleted outright while live (the trash's purge takes only trashed ones, which count
  // for nothing), the same with the sign turned.
  for (const [trigger, event, transition, table, sign] of [
    ['items_tallies_inserted', 'INSERT', 'NEW TABLE', 'new_rows', 1],
    ['items_tallies_deleted', 'DELETE', 'OLD TABLE', 'old_rows', -1],
  ] as const) {
    await knex.raw(`
      CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO value_tally_deltas (generation, text_value, summed, archived, n, total)
        SELECT c.generation, c.text_value, c.summed, c.archived, sum(c.n), sum(c.total)
          FROM ${table} i, item_tallies(i.list_id, i."values", i.archived_at IS NOT NULL, ${sign}) c
         WHERE i.deleted_at IS NULL AND NOT i.is_template
         GROUP BY 1, 2, 3, 4;
        RETURN NULL;
      END $$`);
    await knex.raw(`CREATE TRIGGER ${trigger} AFTER ${event} ON items REFERENCING ${transition} AS ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${trigger}()`);
  }
  // A changed item: the item as it is less the item as it was; what did not move writes nothing.
  await knex.raw(`
    CREATE FUNCTION items_tallies_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO value_tally_deltas (generation, text_value, summed, archived, n, total)
      SELECT d.generation, d.text_value, d.summed, d.archived, sum(d.n), sum(d.total)
        FROM (
          SELECT c.* FROM item_tallies(OLD.list_id, OLD."values", OLD.archived_at IS NOT NULL, -1) c
           WHERE OLD.deleted_at IS NULL AND NOT OLD.is_template
          UNION ALL
          SELECT c.* FROM item_tallies(NEW.list_id, NEW."values", NEW.archived_at IS NOT NULL, 1) c
           WHERE NEW.deleted_at IS NULL AND NOT NEW.is_template
        ) d
       GROUP BY 1, 2, 3, 4
      HAVING sum(d.n) <> 0 OR sum(d.total) <> 0;
      RETURN NULL;
    END $$`);
  // The same condition as item_values' trigger: a title or body edit costs nothing here.
  await knex.raw(`
    CREATE TRIGGER items_tallies_updated AFTER UPDATE ON items FOR EACH ROW
      WHEN (OLD."values" IS DISTINCT FROM NEW."values" OR OLD.list_id IS DISTINCT FROM NEW.list_id
            OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.archived_at IS DISTINCT FROM NEW.archived_at
            OR OLD.is_template IS DISTINCT FROM NEW.is_template)
      EXECUTE FUNCTION items_tallies_updated()`);
  // The select properties of a list, registered as the list is made or its properties change.
  // A property new to the list with no values yet is ready at once; one that was there under
  // another type (a retype to select), or whose values were written first, waits for the build
  // job. One no longer a select is dropped with its figures (its deltas are dropped by the fold).
  await knex.raw(`
    CREATE FUNCTION lists_tallied() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      selects text[];
      known text[];
    BEGIN
      SELECT coalesce(array_agg(p->>'id'), '{}') INTO selects
        FROM ${propertiesOf('NEW.properties')} p
       WHERE p->>'type' = 'select';
      IF TG_OP = 'UPDATE' THEN
        SELECT coalesce(array_agg(p->>'id'), '{}') INTO known
          FROM ${propertiesOf('OLD.properties')} p;
        DELETE FROM tallied_properties WHERE list_id = NEW.id AND property_id <> ALL (selects);
      ELSE
        known := '{}';
      END IF;
      -- Ready at once only when no item of the list has a value for it yet: an import writes
      -- its items before the list's properties, in one transaction.
      INSERT INTO tallied_properties (list_id, property_id, ready)
      SELECT NEW.id, s, s <> ALL (known) AND NOT EXISTS (SELECT 1 FROM item_values v WHERE v.list_id = NEW.id AND v.property_id = s)
        FROM unnest(selects) s
      ON CONFLICT (list_id, property_id) DO NOTHING;
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE TRIGGER lists_tallied AFTER INSERT OR UPDATE OF properties ON lists FOR EACH ROW EXECUTE FUNCTION lists_tallied()');

  // A registration dropped (by the trigger above, or with its list) takes its figures along. The
  // fold holds the registrations it folds into (FOR KEY SHARE), so this runs after any fold of
  // them has committed, and sees what it wrote.
  await knex.raw(`
    CREATE FUNCTION tallied_properties_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM value_tallies WHERE generation IN (SELECT generation FROM old_rows);
      RETURN NULL;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER tallied_properties_deleted AFTER DELETE ON tallied_properties REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tallied_properties_deleted()',
  );

  // The lists there are already: every select property waits for the build job.
  await knex.raw(`
    INSERT INTO tallied_properties (list_id, property_id, ready)
    SELECT l.id, p->>'id', false
      FROM lists l, ${propertiesOf('l.properties')} p
     WHERE p->>'type' = 'select'
    ON CONFLICT DO NOTHING`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS tallied_properties_deleted ON tallied_properties');
  await knex.raw('DROP TRIGGER IF EXISTS lists_tallied ON lists');
  await knex.raw('DROP TRIGGER IF EXISTS items_tallies_deleted ON items');
  await knex.raw('DROP TRIGGER IF EXISTS items_tallies_updated ON items');
  await knex.raw('DROP TRIGGER IF EXISTS items_tallies_inserted ON items');
  await knex.raw('DROP FUNCTION IF EXISTS tallied_properties_deleted()');
  await knex.raw('DROP FUNCTION IF EXISTS lists_tallied()');
  await knex.raw('DROP FUNCTION IF EXISTS items_tallies_deleted()');
  await knex.raw('DROP FUNCTION IF EXISTS items_tallies_updated()');
  await knex.raw('DROP FUNCTION IF EXISTS items_tallies_inserted()');
  await knex.raw('DROP FUNCTION IF EXISTS item_tallies(uuid, jsonb, boolean, integer)');
  await knex.raw('DROP TABLE IF EXISTS value_tally_deltas');
  await knex.raw('DROP TABLE IF EXISTS value_tallies');
  await knex.raw('DROP TABLE IF EXISTS tallied_properties');
}
