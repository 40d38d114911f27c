import type { Handler } from '../core/context.js';
import { recordActivity } from '../domain/activity.js';
import { isUuid } from '../domain/ids.js';
import { iso } from '../domain/time.js';
import type { ItemDbRow } from '../domain/items.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * DELETE /items: moves the caller's own items to the trash. Ids that are not the caller's own
 * items (someone else's, shared with them, unknown) are refused; the rest still delete.
 * Deleting an item already in the trash changes nothing and reports it again.
 */
export const delete_items: Handler<'delete_items'> = async ({ db, principal, services, config }, input) => {
  const now = services.now();
  const purgesAt = new Date(now.getTime() + config.trashRetentionDays * DAY_MS);
  const ids = [...new Set(input.itemIds)];
  return db.transaction(async (trx) => {
    const own = (await trx('items').whereIn('id', ids.filter(isUuid)).where({ owner_id: principal.userId })) as ItemDbRow[];
    const ownIds = new Set(own.map((r) => r.id));
    const live = own.filter((r) => r.deleted_at === null).map((r) => r.id);
    const deleted = live.length
      ? ((await trx('items')
          .whereIn('id', live)
          .update({ deleted_at: now, purges_at: purgesAt, deleted_with_list: null, updated_at: now })
          .returning('*')) as ItemDbRow[])
      : [];
    const already = own.filter((r) => r.deleted_at !== null);
    if (deleted.length) {
      await recordActivity(trx, principal, {
        action: 'items.deleted',
        summary: `Deleted ${deleted.length} item${deleted.length > 1 ? 's' : ''}: ${deleted
          .map((r) => r.title ?? '(untitled)')
          .slice(0, 5)
          .join(', ')}`,
      });
    }
    return {
      deleted: deleted.length,
      items: [...deleted, ...already].map((r) => ({ id: r.id, listId: r.list_id, title: r.title, deletedAt: iso(r.deleted_at)!, purgesAt: iso(r.purges_at) })),
      refused: ids.filter((id) => !ownIds.has(id)),
    };
  });
};
