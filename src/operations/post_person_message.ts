import type { Handler } from '../core/context.js';
import { getUser } from '../domain/accounts/accounts.js';
import { chatMessageDto, postPersonMessage } from '../domain/chat/chat.js';
import { listsById, loadAccessible } from '../domain/items/items.js';
import { invalid, notFound } from '../core/errors.js';

/**
 * The person replies in an item's chat (the item page's reply box); the domain marks the
 * agents' messages read, records the activity line and releases a task waiting on the person.
 * @see openapi/openapi.yaml x-person-paths /person/items/{id}/messages
 */
export const post_person_message: Handler<'post_person_message'> = async ({ db, principal }, input) => {
  const item = (await loadAccessible(db, principal.userId, [input.id])).get(input.id);
  if (!item) throw notFound(`No item ${input.id} in your workspace (it may be in the trash).`);
  const text = input.message.trim();
  if (text === '') throw invalid('The message is empty: write something to send.', 'message');
  const list = (await listsById(db, [item.row.list_id])).get(item.row.list_id)!;
  const { name } = await getUser(db, principal.userId);
  const { row } = await postPersonMessage(db, item.row, list, { id: principal.userId, name }, text);
  return chatMessageDto(row);
};
