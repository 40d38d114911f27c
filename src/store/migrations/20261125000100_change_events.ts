import type { Knex } from 'knex';

/**
 * Change events: triggers on items (inserts once per statement, updates per row), lists and
 * chat messages write an event occurrence into the outbox in the transaction of the change (so an event is sent if and only if its change
 * commits, whichever code path made it), but only when the owner holds a live subscription to
 * that event type. Deliveries remember their subject, so the events of one item are delivered
 * in order, one after the other (src/jobs/webhooks.ts). A subscription may ask for the whole
 * item in each item event (`include_item`).
 * @see docs/events.md
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('event_subscriptions', (t) => {
    t.boolean('include_item').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    // The item or list the event is about; deliveries of one subject to one subscription go out in `seq` order.
    t.uuid('subject_id');
    t.bigIncrements('seq', { primaryKey: false });
  });
  await knex.raw(`CREATE INDEX webhook_deliveries_subject_idx ON webhook_deliveries (subscription_id, subject_id, seq) WHERE status = 'pending'`);

  // One occurrence as the outbox carries it: the envelope, and the audience the fan-out sends it to.
  await knex.raw(`
    CREATE FUNCTION change_event_payload(kind text, owner uuid, data jsonb) RETURNS jsonb LANGUAGE sql VOLATILE AS $$
      SELECT jsonb_build_object(
        'eventId', 'evt_' || replace(gen_random_uuid()::text, '-', ''),
        'type', kind,
        'name', kind,
        'timestamp', at,
        'data', data || jsonb_build_object('occurredAt', at),
        'cursor', NULL,
        'audience', jsonb_build_array(owner)
      ) FROM (SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at) now_text
    $$`);
  // Whether `owner` holds a live subscription to `kind`.
  await knex.raw(`
    CREATE FUNCTION subscribed_to(owner uuid, kind text) RETURNS boolean LANGUAGE sql STABLE AS $$
      SELECT EXISTS (
        SELECT 1 FROM event_subscriptions s
        WHERE s.user_id = owner AND s.status <> 'retired' AND kind = ANY (s.events)
          AND (s.expires_at IS NULL OR s.expires_at > now())
      )
    $$`);
  await knex.raw(`
    CREATE FUNCTION change_event(kind text, subject uuid, owner uuid, data jsonb) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF subscribed_to(owner, kind) THEN
        INSERT INTO outbox (topic, subject_id, payload) VALUES ('event', subject, change_event_payload(kind, owner, data));
      END IF;
    END $$`);

  // Created items once per statement over its rows (a transition table): an insert of many items
  // whose owner subscribes to no item event costs one indexed lookup, however many rows it wrote.
  const itemData = (row: string, changed: string, previous: string) =>
    `jsonb_build_object('itemId', ${row}.id, 'listId', ${row}.list_id, 'previousListId', ${previous}, 'title', ${row}.title,
       'taskStatus', ${row}.task_status, 'updatedAt', to_char(${row}.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
       'changed', ${changed})`;
  const anySubscribed = `EXISTS (
      SELECT 1 FROM event_subscriptions s
      WHERE s.user_id IN (SELECT DISTINCT owner_id FROM new_rows) AND s.status <> 'retired'
        AND s.events && ARRAY['item.created', 'item.updated', 'item.completed', 'item.deleted', 'item.restored', 'item.moved']
    )`;
  await knex.raw(`
    CREATE FUNCTION items_created_events() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT ${anySubscribed} THEN RETURN NULL; END IF;
      INSERT INTO outbox (topic, subject_id, payload)
      SELECT 'event', n.id, change_event_payload('item.created', n.owner_id, ${itemData('n', "'[]'::jsonb", 'NULL::uuid')})
      FROM new_rows n
      WHERE NOT n.is_template AND subscribed_to(n.owner_id, 'item.created')
      ORDER BY n.created_seq;
      RETURN NULL;
    END $$`);
  await knex.raw(
    'CREATE TRIGGER items_created_events AFTER INSERT ON items REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION items_created_events()',
  );

  // Updates row by row: update_items writes one row a statement, and a row trigger costs an
  // owner with a subscription less than a statement trigger's join of the transition tables
  // (bench/change-events.bench.ts). One change of one row is one event, of the most specific kind.
  await knex.raw(`
    CREATE FUNCTION items_changed_event() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      kind text;
      changed text[] := ARRAY[]::text[];
    BEGIN
      IF current_setting('listkeeper.sequencing', true) = 'on' OR NEW.is_template THEN
        RETURN NULL;
      END IF;
      IF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
        kind := 'item.deleted';
      ELSIF OLD.deleted_at IS NOT NULL AND NEW.deleted_at IS NULL THEN
        kind := 'item.restored';
      ELSIF NEW.deleted_at IS NOT NULL OR NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
        -- In the trash, or a write the service does not count as a change (positions, outlines).
        RETURN NULL;
      ELSIF NEW.list_id <> OLD.list_id THEN
        kind := 'item.moved';
      ELSIF NEW.task_status = 'completed' AND OLD.task_status IS DISTINCT FROM 'completed' THEN
        kind := 'item.completed';
      ELSE
        kind := 'item.updated';
      END IF;
      IF NOT subscribed_to(NEW.owner_id, kind) THEN
        RETURN NULL;
      END IF;
      IF NEW.title IS DISTINCT FROM OLD.title THEN changed := array_append(changed, 'title'); END IF;
      IF NEW.body IS DISTINCT FROM OLD.body THEN changed := array_append(changed, 'body'); END IF;
      IF NEW.task_status IS DISTINCT FROM OLD.task_status THEN changed := array_append(changed, 'taskStatus'); END IF;
      IF NEW.due_at IS DISTINCT FROM OLD.due_at OR NEW.has_due_time IS DISTINCT FROM OLD.has_due_time THEN changed := array_append(changed, 'dueAt'); END IF;
      IF NEW.values IS DISTINCT FROM OLD.values THEN changed := array_append(changed, 'values'); END IF;
      IF NEW.archived_at IS DISTINCT FROM OLD.archived_at THEN changed := array_append(changed, 'archivedAt'); END IF;
      IF NEW.assigned_agent IS DISTINCT FROM OLD.assigned_agent THEN changed := array_append(changed, 'assignedAgent'); END IF;
      IF NEW.favorited IS DISTINCT FROM OLD.favorited THEN changed := array_append(changed, 'favorited'); END IF;
      IF NEW.list_id IS DISTINCT FROM OLD.list_id THEN changed := array_append(changed, 'listId'); END IF;
      IF NEW.deleted_at IS DISTINCT FROM OLD.deleted_at THEN changed := array_append(changed, 'deletedAt'); END IF;
      INSERT INTO outbox (topic, subject_id, payload) VALUES ('event', NEW.id, change_event_payload(kind, NEW.owner_id, jsonb_build_object(
        'itemId', NEW.id,
        'listId', NEW.list_id,
        'previousListId', CASE WHEN kind = 'item.moved' THEN OLD.list_id END,
        'title', NEW.title,
        'taskStatus', NEW.task_status,
        'updatedAt', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        'changed', to_jsonb(changed)
      )));
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE TRIGGER items_changed_event AFTER UPDATE ON items FOR EACH ROW EXECUTE FUNCTION items_changed_event()');

  await knex.raw(`
    CREATE FUNCTION lists_change_event() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      kind text;
    BEGIN
      IF TG_OP = 'INSERT' THEN
        kind := 'list.created';
      ELSIF OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL THEN
        kind := 'list.deleted';
      ELSIF OLD.deleted_at IS NOT NULL AND NEW.deleted_at IS NULL THEN
        kind := 'list.restored';
      ELSIF NEW.deleted_at IS NULL AND (NEW.name, NEW.icon, NEW.instructions, NEW.title_label, NEW.layout, NEW.properties)
          IS DISTINCT FROM (OLD.name, OLD.icon, OLD.instructions, OLD.title_label, OLD.layout, OLD.properties) THEN
        kind := 'list.updated';
      ELSE
        RETURN NULL;
      END IF;
      PERFORM change_event(kind, NEW.id, NEW.owner_id, jsonb_build_object(
        'listId', NEW.id,
        'name', NEW.name,
        'updatedAt', to_char(NEW.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
      ));
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE TRIGGER lists_change_event AFTER INSERT OR UPDATE ON lists FOR EACH ROW EXECUTE FUNCTION lists_change_event()');

  // A person's message in an item's chat, for the owner of the item (agents answer it).
  await knex.raw(`
    CREATE FUNCTION chat_reply_event() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      item record;
    BEGIN
      IF NEW.author_kind <> 'person' THEN
        RETURN NULL;
      END IF;
      SELECT id, owner_id, list_id, title INTO item FROM items WHERE id = NEW.item_id;
      PERFORM change_event('chat.replied', item.id, item.owner_id, jsonb_build_object(
        'itemId', item.id,
        'listId', item.list_id,
        'title', item.title,
        'messageId', NEW.id,
        'authorName', NEW.author_name,
        'text', left(NEW.text, 500)
      ));
      RETURN NULL;
    END $$`);
  await knex.raw('CREATE TRIGGER chat_reply_event AFTER INSERT ON chat_messages FOR EACH ROW EXECUTE FUNCTION chat_reply_event()');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS chat_reply_event ON chat_messages');
  await knex.raw('DROP TRIGGER IF EXISTS lists_change_event ON lists');
  await knex.raw('DROP TRIGGER IF EXISTS items_changed_event ON items');
  await knex.raw('DROP TRIGGER IF EXISTS items_created_events ON items');
  await knex.raw('DROP FUNCTION IF EXISTS chat_reply_event()');
  await knex.raw('DROP FUNCTION IF EXISTS lists_change_event()');
  await knex.raw('DROP FUNCTION IF EXISTS items_changed_event()');
  await knex.raw('DROP FUNCTION IF EXISTS items_created_events()');
  await knex.raw('DROP FUNCTION IF EXISTS change_event(text, uuid, uuid, jsonb)');
  await knex.raw('DROP FUNCTION IF EXISTS subscribed_to(uuid, text)');
  await knex.raw('DROP FUNCTION IF EXISTS change_event_payload(text, uuid, jsonb)');
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_subject_idx');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropColumn('seq');
    t.dropColumn('subject_id');
  });
  await knex.schema.alterTable('event_subscriptions', (t) => {
    t.dropColumn('include_item');
  });
}
