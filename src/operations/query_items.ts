import type { Handler } from '../core/context.js';
import { propertyDto, withCurrentList } from '../domain/lists/lists.js';
import { queryItems } from '../domain/query/query-items.js';
import { itemRowDto } from '../domain/items/items.js';
import { withImageUrls } from '../domain/items/attachments.js';
import { getUser } from '../domain/accounts/accounts.js';

/** POST /items/query: filter, sort, count or sum the items of one list. */
export const query_items: Handler<'query_items'> = async (ctx, input) => {
  const { db, principal } = ctx;
  const zoneOf = async () => (await getUser(db, principal.userId)).timezone;
  const { list, result } = await withCurrentList(db, principal.userId, input.listId, (list, versionOf) =>
    queryItems(db, list, input, zoneOf, versionOf === undefined ? {} : { versionOf }),
  );
  const items = result.rows.map((r) => itemRowDto(r, list));
  return {
    mode: input.mode ?? 'list',
    listId: list.id,
    listName: list.name,
    listIcon: list.icon,
    properties: list.properties.map((p) => propertyDto(p)),
    count: result.count,
    sum: result.sum,
    sumPropertyId: result.sumPropertyId,
    items: input.includeImageUrls ? await withImageUrls(ctx, items) : items,
    offset: result.offset,
    hasMore: result.hasMore,
  };
};
