import type { Handler } from '../core/context.js';
import { restoreFromTrash } from '../domain/trash/restore.js';

/**
 * POST /trash/restore: one item or list back from the trash. A list returns with exactly the
 * items deleted with it; an item whose list is still in the trash is refused; an item whose
 * list is gone for good lands on the default list for its kind.
 */
export const restore_deleted: Handler<'restore_deleted'> = async ({ db, principal, services }, input) => {
  const now = services.now();
  return db.transaction((trx) => restoreFromTrash(trx, principal, input.type, input.id, now));
};
