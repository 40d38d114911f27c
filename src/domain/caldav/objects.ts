/**
 * The person's task lists as CalDAV collections: which lists are collections, their tasks as
 * calendar objects (with the text each client last sent, kept in `caldav_objects`), and what
 * changed since a sync token. A sync token is a moment of the changes feed (`feed_clock`, read
 * in the snapshot of the rows it covers), so a client fetches only the tasks positioned after
 * it; a task that left the list (deleted, archived, moved to another list) is reported gone.
 * Writes from a client are not made here: the adapter calls the item operations.
 * @see docs/caldav.md
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { sequencePending } from '../changes/feed.js';
import { keepsTasks, type ListRow } from '../lists/lists.js';
import type { ItemDbRow } from '../items/row-types.js';
import { localNow } from '../time.js';
import { isUuid } from '../ids.js';
import { parentProperty, parseCalendar, masterTodo } from './vtodo-read.js';
import { writeTodo, type TaskSnapshot } from './vtodo-write.js';

/** One task as a calendar object: its resource name in the collection, its text and ETag. */
export interface CalendarObject {
  itemId: string;
  name: string;
  ics: string;
  etag: string;
}

type ObjectRow = ItemDbRow & { caldav_name: string | null; caldav_uid: string | null; caldav_component: string | null; parent_uid: string | null };

/**
 * The person's live lists that keep status and due dates: their CalDAV task collections; with
 * `reach` (the lists the signing-in key's or app password's grant names), only those.
 */
export async function taskCollections(db: Knex, ownerId: string, reach?: readonly string[]): Promise<ListRow[]> {
  const lists = (await db('lists').where({ owner_id: ownerId }).whereNull('deleted_at').orderBy('created_at')) as ListRow[];
  return lists.filter((l) => keepsTasks(l) && (!reach || reach.includes(l.id)));
}

/** One of the person's task collections (within `reach`, when given), or undefined. */
export async function taskCollection(db: Knex, ownerId: string, listId: string, reach?: readonly string[]): Promise<ListRow | undefined> {
  if (!isUuid(listId) || (reach && !reach.includes(listId))) return undefined;
  const list = (await db('lists').where({ id: listId, owner_id: ownerId }).whereNull('deleted_at').first()) as ListRow | undefined;
  return list && keepsTasks(list) ? list : undefined;
}

/**
 * The feed's clock now, in microseconds since 1970: every change positioned up to here is
 * behind it. Changes written and not yet positioned are positioned first, so a client sees
 * its own write at once.
 */
export async function syncMoment(db: Knex): Promise<string> {
  await sequencePending(db);
  const row = (await db.raw(`SELECT (extract(epoch FROM last_at) * 1000000)::bigint::text AS us FROM feed_clock WHERE id = 1`)) as { rows: { us: string }[] };
  return row.rows[0]!.us;
}

function selectObjects(db: Knex, ownerId: string, listId: string): Knex.QueryBuilder {
  return db('items as i')
    .leftJoin('caldav_objects as o', 'o.item_id', 'i.id')
    .leftJoin('items as p', 'p.id', 'i.parent_id')
    .leftJoin('caldav_objects as po', 'po.item_id', 'i.parent_id')
    .where({ 'i.owner_id': ownerId, 'i.list_id': listId })
    .select('i.*', 'o.name as caldav_name', 'o.uid as caldav_uid', 'o.component as caldav_component', db.raw('coalesce(po.uid, p.id::text) AS parent_uid'));
}

const live = (q: Knex.QueryBuilder) => q.whereNull('i.deleted_at').whereNull('i.archived_at');

/** Every task of the collection. */
export async function collectionObjects(db: Knex, list: ListRow, timeZone: string, urlOf: (id: string) => string): Promise<CalendarObject[]> {
  const rows = (await live(selectObjects(db, list.owner_id, list.id)).orderBy('i.created_at')) as ObjectRow[];
  return Promise.all(rows.map((row) => calendarObject(db, row, timeZone, urlOf)));
}

/**
 * What changed in the collection after the sync moment `since`: the tasks changed there, and
 * the names of those gone from it (deleted, archived, or moved to another list).
 */
export async function collectionChanges(
  db: Knex,
  list: ListRow,
  since: string,
  timeZone: string,
  urlOf: (id: string) => string,
): Promise<{ changed: CalendarObject[]; gone: string[] }> {
  const after = db.raw(`to_timestamp(0) + ?::bigint * interval '1 microsecond'`, [since]);
  const rows = (await selectObjects(db, list.owner_id, list.id).where('i.feed_at', '>', after).orderBy('i.feed_seq')) as ObjectRow[];
  const left = (await db('item_departures as d')
    .join('items as i', 'i.id', 'd.item_id')
    .leftJoin('caldav_objects as o', 'o.item_id', 'i.id')
    .where('d.list_id', list.id)
    .whereNot('i.list_id', list.id)
    .where('i.feed_at', '>', after)
    .select('i.id', 'o.name')) as { id: string; name: string | null }[];
  const stays = rows.filter((r) => r.deleted_at === null && r.archived_at === null);
  return {
    changed: await Promise.all(stays.map((row) => calendarObject(db, row, timeZone, urlOf))),
    gone: [...rows.filter((r) => !stays.includes(r)), ...left].map((r) => ('caldav_name' in r ? r.caldav_name : r.name) ?? `${r.id}.ics`),
  };
}

/** The task a resource name stands for in the collection: the name a client gave it, or `<item id>.ics`. */
export async function findObject(db: Knex, list: ListRow, name: string, timeZone: string, urlOf: (id: string) => string): Promise<CalendarObject | undefined> {
  const bare = name.replace(/\.ics$/i, '');
  const row = (await live(selectObjects(db, list.owner_id, list.id))
    .where((q) => {
      q.whereIn('o.name', [name, `${bare}.ics`]);
      if (isUuid(bare)) q.orWhere((q2) => q2.whereNull('o.item_id').where('i.id', bare));
    })
    .first()) as ObjectRow | undefined;
  return row ? calendarObject(db, row, timeZone, urlOf) : undefined;
}

/** The item a UID names among the person's items: one a client gave that UID, or the item with that id. */
export async function itemOfUid(db: Knex, ownerId: string, uid: string): Promise<string | null> {
  const given = (await db('caldav_objects as o')
    .join('items as i', 'i.id', 'o.item_id')
    .where({ 'o.owner_id': ownerId, 'o.uid': uid })
    .whereNull('i.deleted_at')
    .orderBy('o.updated_at', 'desc')
    .first('o.item_id')) as { item_id: string } | undefined;
  if (given) return given.item_id;
  if (!isUuid(uid)) return null;
  const own = (await db('items').where({ id: uid, owner_id: ownerId }).whereNull('deleted_at').first('id')) as { id: string } | undefined;
  return own?.id ?? null;
}

/**
 * Keeps what a client sent for an item under the name it chose; a trashed item that held the
 * name (the client deleted it and made a new one under the same name) gives it up.
 */
export async function saveObject(db: Knex, object: { itemId: string; ownerId: string; name: string; uid: string; component: string }): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('caldav_objects')
      .where({ owner_id: object.ownerId, name: object.name })
      .whereNot('item_id', object.itemId)
      .whereIn('item_id', trx('items').whereNotNull('deleted_at').select('id'))
      .delete();
    await trx('caldav_objects')
      .insert({ item_id: object.itemId, owner_id: object.ownerId, name: object.name, uid: object.uid, component: object.component, updated_at: trx.fn.now() })
      .onConflict('item_id')
      .merge();
  });
}

async function calendarObject(db: Knex, row: ObjectRow, timeZone: string, urlOf: (id: string) => string): Promise<CalendarObject> {
  const stored = row.caldav_component;
  const ics = writeTodo(await snapshot(db, row, timeZone, urlOf(row.id)), stored);
  return { itemId: row.id, name: row.caldav_name ?? `${row.id}.ics`, ics, etag: etagOf(ics) };
}

/** An ETag for calendar text: it changes exactly when the text does. */
export function etagOf(ics: string): string {
  return `"${createHash('sha256').update(ics).digest('base64url').slice(0, 22)}"`;
}

async function snapshot(db: Knex, row: ObjectRow, timeZone: string, url: string): Promise<TaskSnapshot> {
  const hasDue = row.due_at !== null;
  return {
    uid: row.caldav_uid ?? row.id,
    title: row.title,
    body: row.body,
    status: row.task_status ?? 'todo',
    completedAt: row.completed_at,
    due: hasDue ? (row.has_due_time === false ? { date: localNow(row.due_at!, timeZone).today } : { at: row.due_at! }) : null,
    recurrence: row.recurrence,
    reminder: row.reminder_at ? { at: row.reminder_at, beforeDueMinutes: hasDue ? row.reminder_offset_minutes : null } : null,
    labels: row.labels ?? [],
    parentUid: row.parent_uid ?? (await unresolvedParent(db, row)),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    url,
    timeZone,
  };
}

/**
 * The parent a client named that listkeeper does not know (yet): kept so the client's
 * RELATED-TO survives. A parent it knows and the item is no longer under was detached here.
 */
async function unresolvedParent(db: Knex, row: ObjectRow): Promise<string | null> {
  if (!row.caldav_component) return null;
  const todo = masterTodo(parseCalendar(row.caldav_component));
  const named = todo ? parentProperty(todo)?.getFirstValue()?.toString() : undefined;
  if (!named) return null;
  return (await itemOfUid(db, row.owner_id, named)) === null ? named : null;
}
