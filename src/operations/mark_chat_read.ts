import type { Handler } from '../core/context.js';
import { markChatRead } from '../domain/chat/chat.js';
import { loadAccessible } from '../domain/items/items.js';
import { notFound } from '../core/errors.js';

/**
 * The person saw an item's chat on its page: the agents' and the service's messages there are
 * read from now on. No activity line: nothing of the workspace changed.
 * @see openapi/openapi.yaml x-person-paths /person/items/{id}/messages/read
 */
export const mark_chat_read: Handler<'mark_chat_read'> = async ({ db, principal, services }, input) => {
  if (!(await loadAccessible(db, principal.userId, [input.id])).has(input.id)) throw notFound(`No item ${input.id} in your workspace.`);
  return { id: input.id, marked: await markChatRead(db, input.id, services.now()) };
};
