/**
 * The filters and sorts of list_items (outside the changes feed): one list's items or the
 * Tasks set, by status, text, dates and ids.
 * @see openapi/openapi.yaml list_items
 */
import type { Knex } from 'knex';
import type { OpInput } from '../../core/context.js';
import { TASK_STATUSES, type ItemDbRow } from '../items/row-types.js';
import { decodeCursor, encodeCursor, SHAPES } from '../cursors.js';
import { whereLabel } from '../items/labels.js';
import { keepsStatus, listVersionColumn, withCurrentList, type ListRow } from '../lists/lists.js';

export type ItemFilter = Omit<OpInput<'list_items'>, 'changedSince' | 'listId' | 'includeImageUrls' | 'scope'>;

/** One page of items, and the cursor of the next when there is one. */
export interface ItemPage {
  /** With each row, its live subtasks counted (null when it has none). */
  rows: (ItemDbRow & { subtasks: { count: number; open: number } | null })[];
  hasMore: boolean;
  nextCursor: string | null;
  /** With `versionOf`, the list's version the page's statement saw (undefined when the page is empty). */
  listVersion?: string | null;
}

/** One list's page and the list as it is now, in one statement when the list is remembered (lists.ts, withCurrentList). */
export async function pageOfList(db: Knex, ownerId: string, listId: string, filter: ItemFilter): Promise<{ list: ListRow; page: ItemPage }> {
  const { list, result } = await withCurrentList(db, ownerId, listId, (list, versionOf) =>
    filterItems(db, [list.id], filter, keepsStatus(list), versionOf === undefined ? {} : { versionOf }),
  );
  return { list, page: result };
}

/**
 * Live, unarchived, non-template items of `listIds` matching the filter, sorted, a page of
 * `limit` (default 50) after `cursor`.
 */
export async function filterItems(
  db: Knex,
  listIds: string[],
  input: ItemFilter,
  statusApplies: boolean,
  options: { /** The owner of the one list: each row also carries the list's version (pageOfList). */ versionOf?: string } = {},
): Promise<ItemPage> {
  if (listIds.length === 0) return { rows: [], hasMore: false, nextCursor: null };
  const q = db('items').whereIn('list_id', listIds).whereNull('deleted_at').whereNull('archived_at').where('is_template', false);
  if (input.ids?.length) q.whereIn('id', input.ids);
  if (input.label) whereLabel(q, input.label);
  if (input.query) {
    for (const word of input.query.split(/\s+/).filter(Boolean).slice(0, 10)) {
      const like = `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q.where((w) => w.whereILike('title', like).orWhereILike('body', like));
    }
  }
  const completedWindow = input.completedAfter !== undefined || input.completedBefore !== undefined;
  if (statusApplies) {
    const statuses = input.taskStatus?.length ? input.taskStatus : completedWindow ? ['completed'] : TASK_STATUSES.filter((s) => s !== 'completed');
    q.where((w) => {
      w.whereIn('task_status', statuses);
      if (statuses.includes('todo')) w.orWhereNull('task_status');
    });
  }
  const range = (column: string, after?: string, before?: string) => {
    if (after !== undefined) q.where(column, '>=', after);
    if (before !== undefined) q.where(column, '<', before);
  };
  range('due_at', input.dueAfter, input.dueBefore);
  range('created_at', input.createdAfter, input.createdBefore);
  range('updated_at', input.updatedAfter, input.updatedBefore);
  range('completed_at', input.completedAfter, input.completedBefore);
  const sort = input.sort ?? 'due';
  const order = ORDERS[sort];
  q.select('*', db.raw(`${order.key.map((k, i) => `(${k})::text AS k${i}`).join(', ')}`), db.raw(`${SUBTASKS} AS subtasks`)).orderByRaw(order.orderBy);
  if (options.versionOf !== undefined) q.select(listVersionColumn(db, options.versionOf, listIds[0]!));
  if (input.cursor !== undefined) {
    const after = decodeCursor(
      input.cursor,
      `items:${sort}`,
      order.casts.map((c) => SHAPES[c]),
    );
    // Row comparison over the sort key: exactly the rows after the cursor's in this order.
    q.whereRaw(`(${order.key.join(', ')}) ${order.after} (${order.casts.map((c) => `?::${c}`).join(', ')})`, after);
  }
  const limit = input.limit ?? 50;
  const rows = (await q.limit(limit + 1)) as (ItemPage['rows'][number] & Record<string, string>)[];
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const hasMore = rows.length > limit;
  return {
    rows: page,
    hasMore,
    ...(options.versionOf !== undefined && last ? { listVersion: last.list_version ?? null } : {}),
    nextCursor:
      hasMore && last
        ? encodeCursor(
            `items:${sort}`,
            order.key.map((_, i) => last[`k${i}`]!),
          )
        : null,
  };
}

/**
 * A row's live subtasks counted, in the page's own statement (a round trip fewer per page
 * than counting them apart; items_parent_idx finds them).
 */
const SUBTASKS = `(SELECT CASE WHEN count(*) > 0 THEN json_build_object('count', count(*), 'open', count(*) FILTER (WHERE s.task_status IS DISTINCT FROM 'completed')) END
   FROM items s WHERE s.parent_id = items.id AND s.deleted_at IS NULL)`;

/**
 * Each sort as a row key whose plain ascending (or descending) order is the sort: NULLs are
 * ordered by a flag before the value, so one row comparison continues after a cursor.
 */
const ORDERS: Record<NonNullable<ItemFilter['sort']>, { key: string[]; casts: ('boolean' | 'timestamptz' | 'bigint')[]; orderBy: string; after: '>' | '<' }> = {
  due: {
    key: ['due_at IS NULL', "coalesce(due_at, 'epoch')", 'created_at', 'created_seq'],
    casts: ['boolean', 'timestamptz', 'timestamptz', 'bigint'],
    orderBy: 'due_at ASC NULLS LAST, created_at ASC, created_seq ASC',
    after: '>',
  },
  created: { key: ['created_at', 'created_seq'], casts: ['timestamptz', 'bigint'], orderBy: 'created_at DESC, created_seq DESC', after: '<' },
  updated: { key: ['updated_at', 'created_seq'], casts: ['timestamptz', 'bigint'], orderBy: 'updated_at DESC, created_seq DESC', after: '<' },
  completed: {
    key: ['completed_at IS NOT NULL', "coalesce(completed_at, 'epoch')", 'created_seq'],
    casts: ['boolean', 'timestamptz', 'bigint'],
    orderBy: 'completed_at DESC NULLS LAST, created_seq DESC',
    after: '<',
  },
};
