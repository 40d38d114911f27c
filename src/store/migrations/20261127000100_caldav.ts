import type { Knex } from 'knex';

/**
 * CalDAV (src/domain/caldav/): what a phone's task app wrote for an item that has no column of
 * its own (its VTODO as sent, so a round trip loses nothing, under the resource name and UID it
 * chose); the lists an item left, so a sync of the list it left reports it gone; and the app
 * passwords a CalDAV client signs in with (only their SHA-256 is kept, as for API keys).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('caldav_objects', (t) => {
    t.uuid('item_id').primary().references('items.id').onDelete('CASCADE');
    t.uuid('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('uid').notNullable();
    t.text('component').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['owner_id', 'name']);
    t.index(['owner_id', 'uid']);
  });
  await knex.schema.createTable('item_departures', (t) => {
    t.uuid('list_id').notNullable().references('lists.id').onDelete('CASCADE');
    t.uuid('item_id').notNullable().references('items.id').onDelete('CASCADE');
    t.primary(['list_id', 'item_id']);
  });
  await knex.raw(`
    CREATE FUNCTION note_item_departure() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO item_departures (list_id, item_id) VALUES (OLD.list_id, NEW.id) ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$;
    CREATE TRIGGER items_departure AFTER UPDATE OF list_id ON items
      FOR EACH ROW WHEN (OLD.list_id IS DISTINCT FROM NEW.list_id) EXECUTE FUNCTION note_item_departure();
  `);
  await knex.schema.createTable('app_passwords', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('password_hash').notNullable().unique();
    t.text('hint').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('app_passwords');
  await knex.raw('DROP TRIGGER IF EXISTS items_departure ON items; DROP FUNCTION IF EXISTS note_item_departure()');
  await knex.schema.dropTable('item_departures');
  await knex.schema.dropTable('caldav_objects');
}
