import type { Knex } from 'knex';

/**
 * `item_values`: each live item's scalar property values, one row per item and property (a
 * JSON string in `text_value`, a number in `num_value`; booleans, arrays and nulls have no
 * row), kept by triggers on `items` in the same transaction as the write. A live item is one
 * not in the trash and not a template; `archived` says whether it is archived. query_items
 * counts and sums items with select and number conditions here, reading the index alone,
 * instead of visiting every matching item (src/domain/query/item-values.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE item_values (
      item_id uuid NOT NULL REFERENCES items (id) ON DELETE CASCADE,
      list_id uuid NOT NULL,
      property_id text NOT NULL,
      text_value text,
      num_value numeric,
      archived boolean NOT NULL,
      PRIMARY KEY (item_id, property_id) INCLUDE (text_value, num_value)
    )`);
  await knex.raw('CREATE INDEX item_values_text_idx ON item_values (list_id, property_id, text_value, archived, item_id) WHERE text_value IS NOT NULL');
  await knex.raw('CREATE INDEX item_values_num_idx ON item_values (list_id, property_id, num_value, archived, item_id) WHERE num_value IS NOT NULL');

  // The scalar values of one item's `values`: its property id, and the text or the number.
  await knex.raw(`
    CREATE FUNCTION item_scalar_values(v jsonb, OUT property_id text, OUT text_value text, OUT num_value numeric)
      RETURNS SETOF record LANGUAGE sql IMMUTABLE AS $$
      SELECT e.key,
             CASE WHEN jsonb_typeof(e.value) = 'string' THEN e.value #>> '{}' END,
             CASE WHEN jsonb_typeof(e.value) = 'number' THEN (e.value #>> '{}')::numeric END
        FROM jsonb_each(CASE WHEN jsonb_typeof(v) = 'object' THEN v ELSE '{}'::jsonb END) e
       WHERE jsonb_typeof(e.value) IN ('string', 'number')
    $$`);
  await knex.raw(`
    CREATE FUNCTION items_values_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO item_values (item_id, list_id, property_id, text_value, num_value, archived)
      SELECT i.id, i.list_id, s.property_id, s.text_value, s.num_value, i.archived_at IS NOT NULL
        FROM new_rows i, item_scalar_values(i."values") s
       WHERE i.deleted_at IS NULL AND NOT i.is_template;
      RETURN NULL;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER items_values_inserted AFTER INSERT ON items REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION items_values_inserted()',
  );
  await knex.raw(`
    CREATE FUNCTION items_values_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM item_values WHERE item_id = NEW.id;
      IF NEW.deleted_at IS NULL AND NOT NEW.is_template THEN
        INSERT INTO item_values (item_id, list_id, property_id, text_value, num_value, archived)
        SELECT NEW.id, NEW.list_id, s.property_id, s.text_value, s.num_value, NEW.archived_at IS NOT NULL
          FROM item_scalar_values(NEW."values") s;
      END IF;
      RETURN NULL;
    END $$`);
  // Only writes that change what the rows say: a title or body edit costs nothing here.
  await knex.raw(`
    CREATE TRIGGER items_values_updated AFTER UPDATE ON items FOR EACH ROW
      WHEN (OLD."values" IS DISTINCT FROM NEW."values" OR OLD.list_id IS DISTINCT FROM NEW.list_id
            OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.archived_at IS DISTINCT FROM NEW.archived_at
            OR OLD.is_template IS DISTINCT FROM NEW.is_template)
      EXECUTE FUNCTION items_values_updated()`);
  // The items there are already.
  await knex.raw(`
    INSERT INTO item_values (item_id, list_id, property_id, text_value, num_value, archived)
    SELECT i.id, i.list_id, s.property_id, s.text_value, s.num_value, i.archived_at IS NOT NULL
      FROM items i, item_scalar_values(i."values") s
     WHERE i.deleted_at IS NULL AND NOT i.is_template`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS items_values_updated ON items');
  await knex.raw('DROP TRIGGER IF EXISTS items_values_inserted ON items');
  await knex.raw('DROP FUNCTION IF EXISTS items_values_updated()');
  await knex.raw('DROP FUNCTION IF EXISTS items_values_inserted()');
  await knex.raw('DROP FUNCTION IF EXISTS item_scalar_values(jsonb)');
  await knex.raw('DROP TABLE IF EXISTS item_values');
}
