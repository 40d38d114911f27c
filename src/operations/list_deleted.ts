import type { Handler } from '../core/context.js';
import { readTrash } from '../domain/trash.js';

/** GET /trash: lists and items deleted in the retention window, newest first, with purgesAt. */
export const list_deleted: Handler<'list_deleted'> = async ({ db, principal }, input) => {
  const items = await readTrash(db, principal.userId, input.type, input.limit ?? 25);
  return { count: items.length, items };
};
