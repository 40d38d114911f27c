/**
 * The trash: soft-deleted lists and items, restore rules and the purge.
 * @see docs/lifecycle.md
 */
import type { Knex } from 'knex';
import { resolveList } from './lists.js';

/** Deletes for good every list and item whose retention ran out; returns how many of each. */
export async function purgeExpired(db: Knex, now: Date): Promise<{ items: number; lists: number }> {
  return db.transaction(async (trx) => {
    const items = await trx('items').whereNotNull('deleted_at').where('purges_at', '<=', now).delete();
    const due = (await trx('lists').whereNotNull('deleted_at').where('purges_at', '<=', now).select('id', 'owner_id')) as { id: string; owner_id: string }[];
    for (const list of due) {
      // Items still in the trash with a later purge date outlive their list: they wait on the
      // default list for their kind, and a restore says they moved there.
      const waiting = (await trx('items').where({ list_id: list.id }).select('id', 'task_status')) as { id: string; task_status: string | null }[];
      for (const kind of ['tasks', 'notes'] as const) {
        const ids = waiting.filter((i) => (i.task_status !== null) === (kind === 'tasks')).map((i) => i.id);
        if (ids.length) {
          const target = await resolveList(trx, list.owner_id, kind);
          await trx('items').whereIn('id', ids).update({ list_id: target.id, list_purged: true, deleted_with_list: null });
        }
      }
      await trx('lists').where({ id: list.id }).delete();
    }
    return { items, lists: due.length };
  });
}
