import type { Handler } from '../core/context.js';
import { resolveList, type ListRow } from '../domain/lists.js';
import { recordActivity } from '../domain/activity.js';
import { notFound, toolError } from '../core/errors.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const UNDELETABLE: Record<string, string> = {
  tasks: 'The Tasks list is the hub’s own and cannot be deleted; delete its items with delete_items instead.',
  life_admin: 'Life Admin is the hub’s own list and cannot be deleted; delete its items with delete_items instead.',
};

/**
 * DELETE /lists/{id}: a soft delete. The list and every live item on it go to the trash
 * together; each such item is marked `deleted_with_list`, so restoring the list brings back
 * exactly those and not the items that were trashed before on their own.
 * @see docs/lifecycle.md
 */
export const delete_list: Handler<'delete_list'> = async ({ db, principal, config, services }, input) => {
  const now = services.now();
  const purgesAt = new Date(now.getTime() + config.trashRetentionDays * DAY_MS);
  return db.transaction(async (trx) => {
    const found = await resolveList(trx, principal.userId, input.id, { remakeNotes: false });
    const list = (await trx('lists').where({ id: found.id }).whereNull('deleted_at').forUpdate().first()) as ListRow | undefined;
    // Deleted by a concurrent call while this one waited for the lock.
    if (!list) throw notFound(`No list ${input.id} in your workspace; list_lists shows the lists you have.`);
    const refusal = list.system_role ? UNDELETABLE[list.system_role] : undefined;
    if (refusal) throw toolError(refusal);

    const live = (await trx('items')
      .where({ list_id: list.id })
      .whereNull('deleted_at')
      .first(trx.raw('count(*)::int AS n'), trx.raw('count(archived_at)::int AS archived'))) as { n: number; archived: number };
    if (live.n > 0 && input.confirmDeleteItems !== true) {
      const archived = live.archived ? ` (${live.archived} of them archived)` : '';
      throw toolError(
        `List '${list.name}' still holds ${live.n} item${live.n === 1 ? '' : 's'}${archived}; send confirmDeleteItems: true to delete it with them, or move them first with move_items.`,
      );
    }

    const itemsDeleted = await trx('items')
      .where({ list_id: list.id })
      .whereNull('deleted_at')
      .update({ deleted_at: now, purges_at: purgesAt, deleted_with_list: list.id, updated_at: now });
    await trx('lists').where({ id: list.id }).update({ deleted_at: now, purges_at: purgesAt, updated_at: now });
    await recordActivity(trx, principal, {
      action: 'list.deleted',
      summary: `Deleted list '${list.name}' with ${itemsDeleted} item${itemsDeleted === 1 ? '' : 's'}`,
      listId: list.id,
    });
    return { deleted: true, id: list.id, name: list.name, itemsDeleted };
  });
};
