/**
 * The trash: soft-deleted lists and items, restore rules and the purge.
 * @see docs/lifecycle.md
 */
import type { Knex } from 'knex';
import type { OpOutput, Principal } from '../../core/context.js';
import { notFound, toolError } from '../../core/errors.js';
import { askingConfirmation } from '../../core/confirmation.js';
import { recordActivity } from '../changes/activity.js';
import { isUuid } from '../ids.js';
import type { ItemDbRow } from '../items/items.js';
import { resolveList, type ListRow } from '../lists/lists.js';
import { iso } from '../time.js';
import { decodeCursor, encodeCursor, SHAPES } from '../cursors.js';
import { whereInReach } from '../reach.js';

/** Deletes for good every list and item whose retention ran out; returns how many of each. */
export async function purgeExpired(db: Knex, now: Date): Promise<{ items: number; lists: number }> {
  return db.transaction(async (trx) => {
    const items = await trx('items').whereNotNull('deleted_at').where('purges_at', '<=', now).delete();
    const due = (await trx('lists').whereNotNull('deleted_at').where('purges_at', '<=', now).select('id', 'owner_id')) as { id: string; owner_id: string }[];
    for (const list of due) {
      // Items still in the trash with a later purge date outlive their list: they wait on the
      // default list for their kind, and a restore says they moved there.
      const waiting = (await trx('items').where({ list_id: list.id }).select('id', 'task_status')) as { id: string; task_status: string | null }[];
      for (const kind of ['tasks', 'notes'] as const) {
        const ids = waiting.filter((i) => (i.task_status !== null) === (kind === 'tasks')).map((i) => i.id);
        if (ids.length) {
          const target = await resolveList(trx, list.owner_id, kind);
          await trx('items').whereIn('id', ids).update({ list_id: target.id, list_purged: true, deleted_with_list: null });
        }
      }
      await trx('lists').where({ id: list.id }).delete();
    }
    return { items, lists: due.length };
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** When something deleted now is purged for good. */
export function purgeDate(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() + retentionDays * DAY_MS);
}

/** A trashed item as the delete and feed answers name it. */
export interface TrashedItemDto {
  id: string;
  listId: string;
  title: string | null;
  deletedAt: string;
  purgesAt: string | null;
}

/** A trashed item row in its answer shape. */
export function trashedItemDto(r: Pick<ItemDbRow, 'id' | 'list_id' | 'title' | 'deleted_at' | 'purges_at'>): TrashedItemDto {
  return { id: r.id, listId: r.list_id, title: r.title, deletedAt: iso(r.deleted_at)!, purgesAt: iso(r.purges_at) };
}

/**
 * Moves the owner's own items among `ids` to the trash, each parent with its subtasks. Ids that
 * are not the owner's own items (someone else's, shared with them, unknown) are refused; the
 * rest still delete.
 * Items already in the trash change nothing and are reported again.
 */
export async function trashItems(
  trx: Knex,
  principal: Principal,
  ids: string[],
  now: Date,
  purgesAt: Date,
): Promise<{ deleted: ItemDbRow[]; already: ItemDbRow[]; refused: string[] }> {
  const own = (await whereInReach(trx('items').whereIn('id', ids.filter(isUuid)).where({ owner_id: principal.userId }), 'list_id')) as ItemDbRow[];
  const ownIds = new Set(own.map((r) => r.id));
  const live = own.filter((r) => r.deleted_at === null).map((r) => r.id);
  const deleted = live.length
    ? ((await trx('items')
        .whereIn('id', live)
        .update({ deleted_at: now, purges_at: purgesAt, deleted_with_list: null, deleted_with_parent: null, updated_at: now })
        .returning('*')) as ItemDbRow[])
    : [];
  // A parent's live subtasks go with it, marked so that restoring the parent brings them back.
  if (live.length)
    deleted.push(
      ...((await trx('items')
        .whereIn('parent_id', live)
        .where({ owner_id: principal.userId })
        .whereNull('deleted_at')
        .update({ deleted_at: now, purges_at: purgesAt, deleted_with_list: null, deleted_with_parent: trx.raw('parent_id'), updated_at: now })
        .returning('*')) as ItemDbRow[]),
    );
  if (deleted.length) {
    await recordActivity(trx, principal, {
      action: 'items.deleted',
      summary: `Deleted ${deleted.length} item${deleted.length > 1 ? 's' : ''}: ${deleted
        .map((r) => r.title ?? '(untitled)')
        .slice(0, 5)
        .join(', ')}`,
    });
  }
  return { deleted, already: own.filter((r) => r.deleted_at !== null), refused: ids.filter((id) => !ownIds.has(id)) };
}

const UNDELETABLE: Record<string, string> = {
  tasks: 'The Tasks list is the hub’s own and cannot be deleted; delete its items with delete_items instead.',
  life_admin: 'Life Admin is the hub’s own list and cannot be deleted; delete its items with delete_items instead.',
};

/**
 * A soft delete of a list: the list and every live item on it go to the trash together; each
 * such item is marked `deleted_with_list`, so restoring the list brings back exactly those and
 * not the items that were trashed before on their own. A list that still holds items needs
 * `confirmDeleteItems`.
 */
export async function trashList(
  trx: Knex,
  principal: Principal,
  id: string,
  confirmDeleteItems: boolean,
  now: Date,
  purgesAt: Date,
): Promise<{ list: ListRow; itemsDeleted: number }> {
  const found = await resolveList(trx, principal.userId, id, { remakeNotes: false });
  const list = (await trx('lists').where({ id: found.id }).whereNull('deleted_at').forUpdate().first()) as ListRow | undefined;
  // Deleted by a concurrent call while this one waited for the lock.
  if (!list) throw notFound(`No list ${id} in your workspace; list_lists shows the lists you have.`);
  const refusal = list.system_role ? UNDELETABLE[list.system_role] : undefined;
  if (refusal) throw toolError(refusal);

  const live = (await trx('items')
    .where({ list_id: list.id })
    .whereNull('deleted_at')
    .first(trx.raw('count(*)::int AS n'), trx.raw('count(archived_at)::int AS archived'))) as { n: number; archived: number };
  if (live.n > 0 && !confirmDeleteItems) {
    const archived = live.archived ? ` (${live.archived} of them archived)` : '';
    const items = `${live.n} item${live.n === 1 ? '' : 's'}`;
    throw askingConfirmation(
      toolError(
        `List '${list.name}' still holds ${items}${archived}; send confirmDeleteItems: true to delete it with them, or move them first with move_items.`,
      ),
      {
        field: 'confirmDeleteItems',
        question: `Delete the list '${list.name}' with the ${items}${archived} on it? They go to the trash, where the list can be restored with them for a while.`,
      },
    );
  }
  const itemsDeleted = await trx('items')
    .where({ list_id: list.id })
    .whereNull('deleted_at')
    .update({ deleted_at: now, purges_at: purgesAt, deleted_with_list: list.id, updated_at: now });
  await trx('lists').where({ id: list.id }).update({ deleted_at: now, purges_at: purgesAt, updated_at: now });
  await recordActivity(trx, principal, {
    action: 'list.deleted',
    summary: `Deleted list '${list.name}' with ${itemsDeleted} item${itemsDeleted === 1 ? '' : 's'}`,
    listId: list.id,
  });
  return { list, itemsDeleted };
}

type TrashEntry = OpOutput<'list_deleted'>['items'][number];
type TrashKind = TrashEntry['type'];
const KINDS: readonly TrashKind[] = ['item', 'list'];

/** Where an entry stands in its kind's order (newest first): its deletion time as Postgres prints it, and its id. */
type Position = [at: string, id: string];
/** A kind's place in a cursor: after this entry, or `-` when the kind is read to its end. */
const DONE = '-';
const orDone = (shape: RegExp) => new RegExp(`${shape.source}|^${DONE}$`);
const CURSOR_SHAPES = [orDone(SHAPES.timestamptz), orDone(SHAPES.uuid), orDone(SHAPES.timestamptz), orDone(SHAPES.uuid)];

/** An entry with its place in its kind's order and its deletion time in microseconds (to merge the kinds). */
interface Placed {
  entry: TrashEntry;
  position: Position;
  us: bigint;
}
/** One kind's part of a page, and whether more of it follow. */
interface KindPage {
  entries: Placed[];
  more: boolean;
}
const POSITION_COLUMNS = (alias: string) => `${alias}.deleted_at::text AS k_at, (extract(epoch from ${alias}.deleted_at) * 1000000)::bigint::text AS k_us`;

/**
 * A page of the owner's trash: up to `limit` of each kind (the original API's "per kind"),
 * newest first. Each kind is paged on its own: the cursor holds, for items and for lists,
 * the last entry given or that the kind is done, so a page never pushes one kind's entries
 * out for the other's, and each kind's pages skip and repeat nothing.
 */
export async function readTrash(
  db: Knex,
  ownerId: string,
  type: TrashKind | undefined,
  limit: number,
  cursor?: string,
): Promise<{ entries: TrashEntry[]; hasMore: boolean; nextCursor: string | null }> {
  const parts = cursor === undefined ? null : decodeCursor(cursor, 'trash', CURSOR_SHAPES);
  const after = (kind: TrashKind): Position | null | 'done' => {
    if (!parts) return null;
    const [at, id] = kind === 'item' ? parts.slice(0, 2) : parts.slice(2, 4);
    return at === DONE || id === DONE ? 'done' : [at!, id!];
  };
  const pages = new Map<TrashKind, KindPage>();
  for (const kind of KINDS) {
    const from = after(kind);
    if ((type && type !== kind) || from === 'done') continue;
    pages.set(kind, await (kind === 'item' ? trashedItems : trashedLists)(db, ownerId, limit, from));
  }
  const hasMore = [...pages.values()].some((page) => page.more);
  const next = (kind: TrashKind): Position => {
    const page = pages.get(kind);
    const last = page?.more ? page.entries[page.entries.length - 1] : undefined;
    return last ? last.position : [DONE, DONE];
  };
  const entries = [...pages.values()].flatMap((page) => page.entries).sort(newerFirst);
  return {
    entries: entries.map((e) => e.entry),
    hasMore,
    nextCursor: hasMore ? encodeCursor('trash', [...next('item'), ...next('list')]) : null,
  };
}

/** Newest first by deletion time (to the microsecond), then by id, as the SQL orders each kind. */
function newerFirst(a: Placed, b: Placed): number {
  if (a.us !== b.us) return a.us > b.us ? -1 : 1;
  return a.position[1] > b.position[1] ? -1 : a.position[1] < b.position[1] ? 1 : 0;
}

/** Up to `limit` of the owner's trashed items after `after`, newest first. */
async function trashedItems(db: Knex, ownerId: string, limit: number, after: Position | null): Promise<KindPage> {
  const q = db('items as i')
    .join('lists as l', 'l.id', 'i.list_id')
    .where('i.owner_id', ownerId)
    .whereNotNull('i.deleted_at')
    .modify((q) => whereInReach(q, 'i.list_id'))
    .orderBy([
      { column: 'i.deleted_at', order: 'desc' },
      { column: 'i.id', order: 'desc' },
    ])
    .limit(limit + 1)
    .select('i.id', 'i.title', 'i.body', 'i.deleted_at', 'i.purges_at', 'i.list_id', 'l.name as list_name', db.raw(POSITION_COLUMNS('i')));
  if (after) q.whereRaw('(i.deleted_at, i.id) < (?::timestamptz, ?::uuid)', after);
  const rows = (await q) as {
    id: string;
    title: string | null;
    body: string | null;
    deleted_at: Date;
    purges_at: Date;
    list_id: string;
    list_name: string;
    k_at: string;
    k_us: string;
  }[];
  return {
    more: rows.length > limit,
    entries: rows.slice(0, limit).map((r) => ({
      entry: {
        type: 'item',
        id: r.id,
        title: r.title,
        deletedAt: iso(r.deleted_at)!,
        purgesAt: iso(r.purges_at)!,
        listId: r.list_id,
        listName: r.list_name,
        snippet: r.body ? r.body.slice(0, 140) : null,
      },
      position: [r.k_at, r.id],
      us: BigInt(r.k_us),
    })),
  };
}

/** Up to `limit` of the owner's trashed lists after `after`, newest first, each with the count of items deleted with it. */
async function trashedLists(db: Knex, ownerId: string, limit: number, after: Position | null): Promise<KindPage> {
  const q = db('lists as l')
    .where('l.owner_id', ownerId)
    .whereNotNull('l.deleted_at')
    .modify((q) => whereInReach(q, 'l.id'))
    .orderBy([
      { column: 'l.deleted_at', order: 'desc' },
      { column: 'l.id', order: 'desc' },
    ])
    .limit(limit + 1)
    .select(
      'l.id',
      'l.name',
      'l.deleted_at',
      'l.purges_at',
      db.raw('(SELECT count(*)::int FROM items i WHERE i.deleted_with_list = l.id AND i.deleted_at IS NOT NULL) AS item_count'),
      db.raw(POSITION_COLUMNS('l')),
    );
  if (after) q.whereRaw('(l.deleted_at, l.id) < (?::timestamptz, ?::uuid)', after);
  const rows = (await q) as { id: string; name: string; deleted_at: Date; purges_at: Date; item_count: number; k_at: string; k_us: string }[];
  return {
    more: rows.length > limit,
    entries: rows.slice(0, limit).map((r) => ({
      entry: {
        type: 'list',
        id: r.id,
        title: r.name,
        deletedAt: iso(r.deleted_at)!,
        purgesAt: iso(r.purges_at)!,
        itemCount: r.item_count,
      },
      position: [r.k_at, r.id],
      us: BigInt(r.k_us),
    })),
  };
}
