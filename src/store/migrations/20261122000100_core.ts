import type { Knex } from 'knex';

/**
 * Accounts, keys, lists, items, shares, attachments, activity, memory and chat.
 * Items carry the changes-feed stamps: every write clears `feed_seq`/`feed_at` (trigger) and
 * notes the writing transaction (`change_txid`); the feed sequencer (src/domain/changes/feed.ts)
 * later assigns positions to committed rows, in commit order, so a late-committing writer
 * is never skipped.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE EXTENSION IF NOT EXISTS pgcrypto');
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('timezone').notNullable().defaultTo('UTC');
    t.text('password_hash');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX users_email_key ON users (lower(email))');

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().unique().references('users.id').onDelete('CASCADE');
    t.text('key_hash').notNullable().unique();
    t.text('hint').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
  });

  await knex.schema.createTable('lists', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('icon');
    t.text('instructions');
    t.text('title_label');
    t.text('layout').notNullable().defaultTo('list');
    // The hub's own lists: 'tasks', 'notes', 'life_admin'; null for the person's own lists.
    t.text('system_role');
    t.jsonb('properties').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('deleted_at', { useTz: true });
    t.timestamp('purges_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX lists_owner_idx ON lists (owner_id) WHERE deleted_at IS NULL');
  await knex.raw('CREATE UNIQUE INDEX lists_system_role_key ON lists (owner_id, system_role) WHERE system_role IS NOT NULL AND deleted_at IS NULL');

  await knex.raw('CREATE SEQUENCE feed_seq');
  await knex.schema.createTable('items', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('list_id').notNullable().references('lists.id');
    t.text('title');
    t.text('body');
    t.text('task_status');
    t.timestamp('due_at', { useTz: true });
    t.boolean('has_due_time');
    t.timestamp('reminder_at', { useTz: true });
    t.timestamp('completed_at', { useTz: true });
    t.jsonb('values').notNullable().defaultTo('{}');
    t.text('external_id');
    t.boolean('is_template').notNullable().defaultTo(false);
    t.boolean('favorited').notNullable().defaultTo(false);
    t.text('guidance_note');
    t.timestamp('archived_at', { useTz: true });
    t.timestamp('deleted_at', { useTz: true });
    t.timestamp('purges_at', { useTz: true });
    t.uuid('deleted_with_list');
    // Set when the item's list was purged while the item sat in the trash: it now waits on the default list.
    t.boolean('list_purged').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Creation order within one batch (which shares created_at): entry order.
    t.bigIncrements('created_seq', { primaryKey: false });
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('edited_at', { useTz: true });
    t.specificType('change_txid', 'xid8').notNullable().defaultTo(knex.raw('pg_current_xact_id()'));
    t.bigInteger('feed_seq');
    t.timestamp('feed_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX items_list_idx ON items (list_id, created_at DESC) WHERE deleted_at IS NULL');
  await knex.raw('CREATE INDEX items_owner_due_idx ON items (owner_id, due_at, created_at) WHERE deleted_at IS NULL');
  await knex.raw('CREATE UNIQUE INDEX items_external_id_key ON items (owner_id, external_id) WHERE external_id IS NOT NULL');
  await knex.raw('CREATE INDEX items_feed_pending_idx ON items (change_txid) WHERE feed_seq IS NULL');
  await knex.raw('CREATE INDEX items_feed_idx ON items (list_id, feed_seq)');
  await knex.raw('CREATE INDEX items_trash_idx ON items (owner_id, deleted_at DESC) WHERE deleted_at IS NOT NULL');
  // Every write moves the item's record into the changes feed; the sequencer's own stamping
  // (flagged by a transaction-local setting) must not.
  await knex.raw(`
    CREATE FUNCTION items_stamp_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('listkeeper.sequencing', true) = 'on' THEN RETURN NEW; END IF;
      NEW.change_txid := pg_current_xact_id();
      NEW.feed_seq := NULL;
      NEW.feed_at := NULL;
      RETURN NEW;
    END $$`);
  await knex.raw('CREATE TRIGGER items_stamp_change BEFORE INSERT OR UPDATE ON items FOR EACH ROW EXECUTE FUNCTION items_stamp_change()');
  await knex.schema.createTable('feed_clock', (t) => {
    t.integer('id').primary();
    t.timestamp('last_at', { useTz: true }).notNullable();
  });
  await knex.raw(`INSERT INTO feed_clock (id, last_at) VALUES (1, '2000-01-01T00:00:00Z')`);

  await knex.schema.createTable('shares', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('recipient_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('item_id').references('items.id').onDelete('CASCADE');
    t.uuid('list_id').references('lists.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('ALTER TABLE shares ADD CONSTRAINT shares_one_target CHECK ((item_id IS NULL) <> (list_id IS NULL))');
  await knex.raw('CREATE INDEX shares_recipient_idx ON shares (recipient_id)');
  await knex.raw(
    'CREATE TABLE recipient_favorites (user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE, item_id uuid NOT NULL REFERENCES items(id) ON DELETE CASCADE, PRIMARY KEY (user_id, item_id))',
  );

  await knex.schema.createTable('attachments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('item_id').notNullable().references('items.id').onDelete('CASCADE');
    t.uuid('owner_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('bucket_path').notNullable();
    t.text('mime_type').notNullable();
    t.bigInteger('bytes');
    t.text('source_url');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX attachments_item_idx ON attachments (item_id)');

  await knex.schema.createTable('activity', (t) => {
    t.bigIncrements('id');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('action').notNullable();
    t.text('summary').notNullable();
    t.uuid('item_id');
    t.uuid('list_id');
    t.boolean('via_connection').notNullable().defaultTo(false);
    t.text('client_name');
  });
  await knex.raw('CREATE INDEX activity_user_idx ON activity (user_id, at DESC)');

  await knex.schema.createTable('memory', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('text').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('chat_messages', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('item_id').notNullable().references('items.id').onDelete('CASCADE');
    t.uuid('session_id').notNullable();
    t.text('author_kind').notNullable();
    t.text('author_name').notNullable();
    t.uuid('author_user_id');
    t.text('text').notNullable();
    t.boolean('needs_input').notNullable().defaultTo(false);
    t.text('message_key');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.raw('clock_timestamp()'));
    t.timestamp('read_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX chat_messages_item_idx ON chat_messages (item_id, created_at)');
  await knex.raw('CREATE UNIQUE INDEX chat_messages_key ON chat_messages (item_id, message_key) WHERE message_key IS NOT NULL');

  // The transactional outbox: every item write leaves a row here in the same transaction, so
  // search indexing and events can never miss a committed change (src/jobs/outbox.ts).
  await knex.schema.createTable('outbox', (t) => {
    t.bigIncrements('id');
    t.text('topic').notNullable();
    t.uuid('subject_id').notNullable();
    t.jsonb('payload').notNullable().defaultTo('{}');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('available_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX outbox_available_idx ON outbox (available_at, id)');
  await knex.raw(`
    CREATE FUNCTION items_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('listkeeper.sequencing', true) = 'on' THEN RETURN NULL; END IF;
      INSERT INTO outbox (topic, subject_id, payload)
      VALUES ('item', coalesce(NEW.id, OLD.id), jsonb_build_object('op', lower(TG_OP), 'ownerId', coalesce(NEW.owner_id, OLD.owner_id)));
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE TRIGGER items_outbox AFTER INSERT OR UPDATE OR DELETE ON items FOR EACH ROW EXECUTE FUNCTION items_outbox()');

  await knex.schema.createTable('rate_limits', (t) => {
    t.text('bucket').notNullable();
    t.timestamp('window_start', { useTz: true }).notNullable();
    t.integer('count').notNullable();
    t.primary(['bucket', 'window_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'outbox',
    'rate_limits',
    'chat_messages',
    'memory',
    'activity',
    'attachments',
    'recipient_favorites',
    'shares',
    'feed_clock',
    'items',
    'lists',
    'api_keys',
    'users',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.raw('DROP FUNCTION IF EXISTS items_stamp_change()');
  await knex.raw('DROP FUNCTION IF EXISTS items_outbox()');
  await knex.raw('DROP SEQUENCE IF EXISTS feed_seq');
}
