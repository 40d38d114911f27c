import type { Handler } from '../core/context.js';
import { listDto, liveLists, openItemCounts } from '../domain/lists/lists.js';

/** GET /lists: every live list with properties, role and open item count. */
export const list_lists: Handler<'list_lists'> = async ({ db, principal }, input) => {
  const lists = await liveLists(db, principal.userId);
  const counts = await openItemCounts(
    db,
    lists.map((l) => l.id),
  );
  return {
    total: lists.length,
    tasksListId: lists.find((l) => l.system_role === 'tasks')?.id ?? null,
    notesListId: lists.find((l) => l.system_role === 'notes')?.id ?? null,
    lists: lists.map((l) => listDto(l, counts.get(l.id) ?? 0, input.suppressOptions === true)),
  };
};
