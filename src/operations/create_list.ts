import type { Handler } from '../core/context.js';
import { createList, listDto } from '../domain/lists/lists.js';

/** POST /lists: a new list, with the task columns (`template: tasks`) or the given properties. */
export const create_list: Handler<'create_list'> = async ({ db, principal }, input) => {
  const row = await db.transaction((trx) => createList(trx, principal, input));
  return listDto(row, 0);
};
