import type { Handler } from '../core/context.js';
import { keepsStatus, listsForFeed, propertyDto, resolveList, taskLists } from '../domain/lists.js';
import { itemRowDto } from '../domain/items.js';
import { filterItems } from '../domain/item-filter.js';
import { readItemChanges } from '../domain/item-changes.js';
import { linkRoots } from '../domain/links.js';
import { ApiError } from '../core/errors.js';
import { withImageUrls } from '../domain/attachments.js';

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
    return { ...header, ...(await readItemChanges(db, lists, input.changedSince, input.limit ?? 50)) };
  }
  const rows = await filterItems(
    db,
    lists.map((l) => l.id),
    input,
    list === null || keepsStatus(list),
  );
  const byId = new Map(lists.map((l) => [l.id, l]));
  const items = rows.map((row) => itemRowDto(row, byId.get(row.list_id)!));
  return { ...header, count: items.length, items: input.includeImageUrls ? await withImageUrls(ctx, items) : items };
};
