/**
 * Subtasks: an item nested under another item of the same list, one level deep (a subtask has
 * none of its own), listed in creation order. A parent with open subtasks cannot be completed;
 * moving, trashing and restoring a parent carries its subtasks (update-items.ts,
 * move-items.ts, trash.ts, restore.ts call these).
 * @see openapi/openapi.yaml components/schemas/ParentInput, Subtasks
 */
import type { Knex } from 'knex';
import type { ItemDbRow } from './row-types.js';
import { ValueError } from '../lists/values.js';

/** No live item of the person's by that id: answered as notFound where a refusal has a status. */
export class ParentNotFound extends ValueError {}

/** Checks that `parentId` can take `child` (its id, when it exists already) on `listId`; throws ValueError saying why not. */
export async function checkParent(trx: Knex, ownerId: string, parentId: string, listId: string, child: { id: string } | null): Promise<void> {
  const parent = /^[0-9a-f-]{36}$/i.test(parentId)
    ? ((await trx('items').where({ id: parentId, owner_id: ownerId }).whereNull('deleted_at').first('id', 'list_id', 'parent_id', 'title')) as
        | Pick<ItemDbRow, 'id' | 'list_id' | 'parent_id' | 'title'>
        | undefined)
    : undefined;
  if (!parent) throw new ParentNotFound(`parentId: no live item ${parentId} of yours to nest under.`);
  if (child && parent.id === child.id) throw new ValueError('parentId: an item cannot be its own subtask.');
  if (parent.list_id !== listId) throw new ValueError(`parentId: '${parent.title ?? parent.id}' is on another list; a subtask stays on its parent's list.`);
  if (parent.parent_id) throw new ValueError(`parentId: '${parent.title ?? parent.id}' is itself a subtask; subtasks go one level deep.`);
  if (child) {
    const [has] = (await trx('items').where({ parent_id: child.id }).whereNull('deleted_at').count({ n: '*' })) as { n: number | string }[];
    if (Number(has!.n) > 0) throw new ValueError('parentId: this item has subtasks of its own; subtasks go one level deep.');
  }
}

/** The live subtasks of each of `ids` that are not completed, by parent. */
export async function openSubtasks(trx: Knex, ids: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (ids.length === 0) return out;
  const rows = (await trx('items')
    .whereIn('parent_id', ids)
    .whereNull('deleted_at')
    .whereRaw(`task_status IS DISTINCT FROM 'completed'`)
    .select('parent_id', 'title')) as { parent_id: string; title: string | null }[];
  for (const r of rows) out.set(r.parent_id, [...(out.get(r.parent_id) ?? []), r.title ?? '(untitled)']);
  return out;
}

/** The live subtasks of `ids` (the owner's), to move or trash with them. */
export async function liveSubtaskIds(trx: Knex, ownerId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  return ((await trx('items').whereIn('parent_id', ids).where({ owner_id: ownerId }).whereNull('deleted_at').select('id')) as { id: string }[]).map(
    (r) => r.id,
  );
}
