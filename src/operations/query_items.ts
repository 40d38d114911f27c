import type { Handler } from '../core/context.js';
import { propertyDto, resolveList } from '../domain/lists.js';
import { queryItems } from '../domain/query-items.js';
import { itemRowDto } from '../domain/items.js';
import { withImageUrls } from '../domain/attachments.js';
import { getUser } from '../domain/accounts.js';

/** POST /items/query: filter, sort, count or sum the items of one list. */
export const query_items: Handler<'query_items'> = async (ctx, input) => {
  const { db, principal } = ctx;
  const list = await resolveList(db, principal.userId, input.listId);
  const result = await queryItems(db, list, input, async () => (await getUser(db, principal.userId)).timezone);
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
