/**
 * The changes feed of items as list_items answers it with `changedSince`: the live items
 * changed since the cursor, and the ones deleted since, a page at a time.
 * @see ARCHITECTURE.md "The changes feed"
 */
import type { Knex } from 'knex';
import type { OpOutput } from '../core/context.js';
import { parseCursor, readFeed } from './feed.js';
import { itemRowDto, listsById } from './items.js';
import type { ListRow } from './lists.js';
import type { ItemDbRow } from './rows.js';
import { trashedItemDto } from './trash.js';

type ItemChanges = Pick<OpOutput<'list_items'>, 'count' | 'items' | 'deleted' | 'serverTime' | 'hasMore' | 'nextChangedSince'>;

/** One page of the feed over `lists` from the `changedSince` cursor. */
export async function readItemChanges(db: Knex, lists: ListRow[], changedSince: string, limit: number): Promise<ItemChanges> {
  const cursor = parseCursor(changedSince);
  const page = await readFeed<ItemDbRow>(
    db,
    lists.map((l) => l.id),
    cursor,
    limit,
  );
  const byId = await listsById(
    db,
    lists.map((l) => l.id),
  );
  const live = page.rows.filter((r) => r.deleted_at === null);
  const gone = page.rows.filter((r) => r.deleted_at !== null);
  return {
    count: live.length,
    items: live.map((row) => itemRowDto(row, byId.get(row.list_id)!)),
    deleted: gone.map(trashedItemDto),
    serverTime: page.serverTime,
    hasMore: page.hasMore,
    nextChangedSince: page.next,
  };
}
