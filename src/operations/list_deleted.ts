import type { Handler } from '../core/context.js';
import { readTrash } from '../domain/trash/trash.js';

/** GET /trash: lists and items deleted in the retention window, newest first, with purgesAt, a page at a time. */
export const list_deleted: Handler<'list_deleted'> = async ({ db, principal }, input) => {
  const page = await readTrash(db, principal.userId, input.type, input.limit ?? 25, input.cursor);
  return { count: page.entries.length, items: page.entries, hasMore: page.hasMore, nextCursor: page.nextCursor };
};
