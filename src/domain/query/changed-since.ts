/**
 * The changes feed of items as list_items answers it with `changedSince`: the live items
 * changed since the cursor, and the ones deleted since, a page at a time.
 * @see ARCHITECTURE.md "The changes feed"
 */
import type { Knex } from 'knex';
import type { OpOutput } from '../../core/context.js';
import { parseCursor, readFeed } from '../changes/feed.js';
import { decodeCursor, encodeCursor, SHAPES } from '../cursors.js';
import { itemRowDto, listsById } from '../items/items.js';
import type { ListRow } from '../lists/lists.js';
import type { ItemDbRow } from '../items/row-types.js';
import { trashedItemDto } from '../trash/trash.js';

type ItemChanges = Pick<OpOutput<'list_items'>, 'count' | 'items' | 'deleted' | 'serverTime' | 'hasMore' | 'nextCursor' | 'nextChangedSince'>;

/**
 * One page of the feed over `lists` (or, with `ownerId`, every item the person owns) from the
 * `changedSince` cursor, or from `cursor` (a previous page's `nextCursor`) when given.
 */
export async function readItemChanges(
  db: Knex,
  scope: { lists: ListRow[] } | { ownerId: string },
  changedSince: string,
  cursor: string | undefined,
  limit: number,
): Promise<ItemChanges> {
  const position = parseCursor(cursor === undefined ? changedSince : decodeCursor(cursor, 'feed', [SHAPES.any])[0]!);
  const page = await readFeed<ItemDbRow>(db, 'ownerId' in scope ? scope : { listIds: scope.lists.map((l) => l.id) }, position, limit);
  // The lists read for the scope serve; only rows of lists not among them (the owner's
  // whole workspace) need their lists read.
  const known = new Map('lists' in scope ? scope.lists.map((l) => [l.id, l]) : []);
  const missing = [...new Set(page.rows.map((r) => r.list_id))].filter((id) => !known.has(id));
  const byId = missing.length ? new Map([...known, ...(await listsById(db, missing))]) : known;
  const live = page.rows.filter((r) => r.deleted_at === null);
  const gone = page.rows.filter((r) => r.deleted_at !== null);
  return {
    count: live.length,
    items: live.map((row) => itemRowDto(row, byId.get(row.list_id)!)),
    deleted: gone.map(trashedItemDto),
    serverTime: page.serverTime,
    hasMore: page.hasMore,
    nextCursor: page.hasMore ? encodeCursor('feed', [page.next]) : null,
    nextChangedSince: page.next,
  };
}
