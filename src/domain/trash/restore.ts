/**
 * Restores from the trash: the rules of what comes back with what.
 * @see docs/lifecycle.md
 */
import type { Knex } from 'knex';
import type { OpOutput, Principal } from '../../core/context.js';
import { notFound, toolError } from '../../core/errors.js';
import { recordActivity } from '../changes/activity.js';
import type { ItemDbRow } from '../items/items.js';
import { resolveList, type ListRow } from '../lists/lists.js';
import { inReach } from '../reach.js';

type TrashedItem = ItemDbRow & { list_purged: boolean };

type Result = OpOutput<'restore_deleted'>;

/** Brings one list or item back from the trash and records it in the activity log. */
export async function restoreFromTrash(trx: Knex, principal: Principal, type: 'list' | 'item', id: string, now: Date): Promise<Result> {
  const result = type === 'list' ? await restoreList(trx, principal.userId, id, now) : await restoreItem(trx, principal.userId, id, now);
  if (result.restored)
    await recordActivity(trx, principal, {
      action: `${type}.restored`,
      summary: `Restored ${type} '${result.title ?? '(untitled)'}'${result.restoredItems ? ` with ${result.restoredItems} items` : ''}`,
      ...(type === 'list' ? { listId: id } : { itemId: id }),
    });
  return result;
}

/** Brings a list back from the trash with exactly the items deleted with it. */
export async function restoreList(trx: Knex, ownerId: string, id: string, now: Date): Promise<Result> {
  const list = (await trx('lists').where({ id, owner_id: ownerId }).forUpdate().first()) as ListRow | undefined;
  if (!list || !inReach(list.id)) throw notFound(`No list ${id} in your workspace or its trash (it may have been purged).`);
  const base = { type: 'list' as const, id, title: list.name, movedToDefaultList: false };
  if (!list.deleted_at) return { ...base, restored: false, alreadyLive: true, restoredItems: 0 };
  if (list.system_role) {
    const live = await trx('lists').where({ owner_id: ownerId, system_role: list.system_role }).whereNull('deleted_at').first('id');
    // A hub list (Notes) made afresh in the meantime: the restored one comes back as an ordinary list.
    if (live) await trx('lists').where({ id }).update({ system_role: null });
  }
  await trx('lists').where({ id }).update({ deleted_at: null, purges_at: null, updated_at: now });
  const restoredItems = await trx('items')
    .where({ deleted_with_list: id })
    .whereNotNull('deleted_at')
    .update({ deleted_at: null, purges_at: null, deleted_with_list: null, updated_at: now });
  return { ...base, restored: true, alreadyLive: false, restoredItems };
}

/**
 * Brings an item back from the trash; one whose list is still in the trash is refused, one whose
 * list is gone for good lands on the default list for its kind.
 */
export async function restoreItem(trx: Knex, ownerId: string, id: string, now: Date): Promise<Result> {
  const item = (await trx('items').where({ id, owner_id: ownerId }).forUpdate().first()) as TrashedItem | undefined;
  if (!item || !inReach(item.list_id)) throw notFound(`No item ${id} in your workspace or its trash (it may have been purged).`);
  const base = { type: 'item' as const, id, title: item.title, restoredItems: 0 };
  if (!item.deleted_at) return { ...base, restored: false, alreadyLive: true, movedToDefaultList: false };
  let list = (await trx('lists').where({ id: item.list_id }).first()) as ListRow;
  if (list.deleted_at && !item.list_purged) {
    throw toolError(
      `Item '${item.title ?? id}' was on the list '${list.name}', which is in the trash too; restore the list (type list, id ${list.id}) and it comes back with its items.`,
    );
  }
  if (list.deleted_at) {
    // The purge parked it on a hub list that was itself deleted since: make the default afresh.
    list = await resolveList(trx, ownerId, item.task_status !== null ? 'tasks' : 'notes');
  }
  // A subtask whose parent is gone (in the trash, purged, or on another list now) comes back on its own.
  const parent = item.parent_id
    ? ((await trx('items').where({ id: item.parent_id }).first('deleted_at', 'list_id')) as { deleted_at: Date | null; list_id: string } | undefined)
    : undefined;
  const detach = item.parent_id !== null && (!parent || parent.deleted_at !== null || parent.list_id !== list.id);
  await trx('items')
    .where({ id })
    .update({
      deleted_at: null,
      purges_at: null,
      deleted_with_list: null,
      deleted_with_parent: null,
      list_purged: false,
      list_id: list.id,
      updated_at: now,
      ...(detach ? { parent_id: null } : {}),
    });
  // The subtasks that went to the trash with it come back with it.
  const children = await trx('items')
    .where({ deleted_with_parent: id, owner_id: ownerId })
    .whereNotNull('deleted_at')
    .update({ deleted_at: null, purges_at: null, deleted_with_parent: null, list_purged: false, list_id: list.id, updated_at: now });
  return { ...base, restoredItems: children, restored: true, alreadyLive: false, movedToDefaultList: item.list_purged };
}
