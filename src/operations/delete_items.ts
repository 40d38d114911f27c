import type { Handler } from '../core/context.js';
import { purgeDate, trashedItemDto, trashItems } from '../domain/trash/trash.js';

/**
 * DELETE /items: moves the caller's own items to the trash. Ids that are not the caller's own
 * items are refused; the rest still delete. Deleting an item already in the trash changes
 * nothing and reports it again.
 */
export const delete_items: Handler<'delete_items'> = async ({ db, principal, services, config }, input) => {
  const now = services.now();
  const ids = [...new Set(input.itemIds)];
  const { deleted, already, refused } = await db.transaction((trx) => trashItems(trx, principal, ids, now, purgeDate(now, config.trashRetentionDays)));
  return { deleted: deleted.length, items: [...deleted, ...already].map(trashedItemDto), refused };
};
