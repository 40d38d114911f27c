import type { Handler } from '../core/context.js';
import { listsForFeed, liveLists, propertyDto, taskLists } from '../domain/lists/lists.js';
import { itemRowDto } from '../domain/items/items.js';
import { filterItems, pageOfList } from '../domain/query/item-filter.js';
import { readItemChanges } from '../domain/query/changed-since.js';
import { linkRoots } from '../domain/items/urls.js';
import { ApiError } from '../core/errors.js';
import { withImageUrls } from '../domain/items/attachments.js';

/**
 * GET /items: one list's items, or the Tasks set (every item on the person's lists that keep
 * status and due date), filtered and sorted; with `changedSince`, the changes feed.
 */
export const list_items: Handler<'list_items'> = async (ctx, input) => {
  const { db, principal, config } = ctx;
  const feed = input.changedSince !== undefined;
  const workspace = input.scope === 'workspace';
  if (workspace && input.listId !== undefined)
    throw new ApiError('toolError', 'scope workspace reads every list you own and cannot be combined with listId; leave one of them out.', { field: 'scope' });
  // One list's page reads the list with it (pageOfList); the feed and the sets read theirs first.
  const onePage = input.listId !== undefined && !feed ? await pageOfList(db, principal.userId, input.listId, input) : null;
  const lists = onePage
    ? [onePage.list]
    : input.listId
      ? await listsForFeed(db, principal.userId, input.listId)
      : workspace
        ? feed
          ? [] // the feed reads by owner (see readItemChanges), not by a list set taken before its snapshot
          : await liveLists(db, principal.userId)
        : feed
          ? await listsForFeed(db, principal.userId, undefined)
          : await taskLists(db, principal.userId);
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
    const scope = workspace ? { ownerId: principal.userId } : { lists };
    return { ...header, ...(await readItemChanges(db, scope, input.changedSince, input.cursor, input.limit ?? 50)) };
  }
  const page =
    onePage?.page ??
    (await filterItems(
      db,
      lists.map((l) => l.id),
      input,
      true,
    ));
  const byId = new Map(lists.map((l) => [l.id, l]));
  const items = page.rows.map((row) => ({ ...itemRowDto(row, byId.get(row.list_id)!), ...(row.subtasks ? { subtasks: row.subtasks } : {}) }));
  return {
    ...header,
    count: items.length,
    items: input.includeImageUrls ? await withImageUrls(ctx, items) : items,
    hasMore: page.hasMore,
    nextCursor: page.nextCursor,
  };
};
