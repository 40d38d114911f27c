import type { Handler } from '../core/context.js';
import { purgeDate, trashList } from '../domain/trash/trash.js';

/**
 * DELETE /lists/{id}: a soft delete; the list goes to the trash with every live item on it,
 * and a restore brings back exactly those.
 * @see docs/lifecycle.md
 */
export const delete_list: Handler<'delete_list'> = async ({ db, principal, config, services }, input) => {
  const now = services.now();
  const { list, itemsDeleted } = await db.transaction((trx) =>
    trashList(trx, principal, input.id, input.confirmDeleteItems === true, now, purgeDate(now, config.trashRetentionDays)),
  );
  return { deleted: true, id: list.id, name: list.name, itemsDeleted };
};
