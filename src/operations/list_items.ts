import type { Knex } from 'knex';
import type { Handler, OpInput, OpOutput } from '../core/context.js';
import { keepsStatus, keepsTasks, listsForFeed, propertyDto, resolveList, type ListRow } from '../domain/lists.js';
import { itemRowDto, listsById, TASK_STATUSES, type ItemDbRow } from '../domain/items.js';
import { parseCursor, readFeed } from '../domain/feed.js';
import { linkRoots } from '../domain/links.js';
import { iso } from '../domain/time.js';
import { ApiError } from '../core/errors.js';
import { withImageUrls } from '../domain/attachments.js';

type Input = OpInput<'list_items'>;
type Output = OpOutput<'list_items'>;

/**
 * GET /items: one list's items, or the Tasks set (every item on the person's lists that keep
 * status and due date), filtered and sorted; with `changedSince`, the changes feed.
 */
export const list_items: Handler<'list_items'> = async (ctx, input) => {
  const { db, principal, config } = ctx;
  const feed = input.changedSince !== undefined;
  const lists = feed
    ? await listsForFeed(db, principal.userId, input.listId)
    : input.listId
      ? [await resolveList(db, principal.userId, input.listId)]
      : ((await db('lists').where({ owner_id: principal.userId }).whereNull('deleted_at')) as ListRow[]).filter(keepsTasks);
  const list = input.listId ? lists[0]! : null;
  const header = {
    listId: list?.id ?? null,
    listName: list?.name ?? null,
    listIcon: list?.icon ?? null,
    ...(list?.properties.length ? { properties: list.properties.map((p) => propertyDto(p)) } : {}),
    links: linkRoots(config),
  };
  if (input.changedSince !== undefined) {
    if (input.query !== undefined)
      throw new ApiError(
        'toolError',
        'query cannot be combined with changedSince: the changes feed returns every change; search with query in a separate call.',
        { field: 'query' },
      );
    return { ...header, ...(await changes(db, lists, input.changedSince, input.limit ?? 50)) };
  }
  const rows = await filtered(
    db,
    lists.map((l) => l.id),
    input,
    list === null || keepsStatus(list),
  );
  const byId = new Map(lists.map((l) => [l.id, l]));
  const items = rows.map((row) => itemRowDto(row, byId.get(row.list_id)!));
  return { ...header, count: items.length, items: input.includeImageUrls ? await withImageUrls(ctx, items) : items };
};

async function filtered(db: Knex, listIds: string[], input: Input, statusApplies: boolean): Promise<ItemDbRow[]> {
  if (listIds.length === 0) return [];
  const q = db('items').whereIn('list_id', listIds).whereNull('deleted_at').whereNull('archived_at').where('is_template', false);
  if (input.ids?.length) q.whereIn('id', input.ids);
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
  switch (input.sort ?? 'due') {
    case 'created':
      q.orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'created_seq', order: 'desc' },
      ]);
      break;
    case 'updated':
      q.orderBy([
        { column: 'updated_at', order: 'desc' },
        { column: 'created_seq', order: 'desc' },
      ]);
      break;
    case 'completed':
      q.orderByRaw('completed_at DESC NULLS LAST, created_seq DESC');
      break;
    default:
      q.orderByRaw('due_at ASC NULLS LAST, created_at ASC, created_seq ASC');
  }
  return (await q.limit(input.limit ?? 50)) as ItemDbRow[];
}

async function changes(
  db: Knex,
  lists: ListRow[],
  changedSince: string,
  limit: number,
): Promise<Pick<Output, 'count' | 'items' | 'deleted' | 'serverTime' | 'hasMore' | 'nextChangedSince'>> {
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
    deleted: gone.map((row) => ({ id: row.id, listId: row.list_id, title: row.title, deletedAt: iso(row.deleted_at)!, purgesAt: iso(row.purges_at) })),
    serverTime: page.serverTime,
    hasMore: page.hasMore,
    nextChangedSince: page.next,
  };
}
