import type { Handler } from '../core/context.js';
import { loadAccessible } from '../domain/items/items.js';
import { readChat } from '../domain/chat/chat.js';
import { notFound } from '../core/errors.js';

/** GET /items/{id}/messages: an item's chat, oldest first, after `since` (exclusive). */
export const read_chat_messages: Handler<'read_chat_messages'> = async (ctx, input) => {
  const { db, principal } = ctx;
  if (!(await loadAccessible(db, principal.userId, [input.id])).has(input.id)) {
    throw notFound(`No item ${input.id} in your workspace (it may be in the trash: list_deleted shows it).`);
  }
  return readChat(db, input.id, { since: input.since, limit: input.limit ?? 20 });
};
