/**
 * Sharing: an item shared one by one (`editable: titleAndBody`) or a whole list
 * (`editable: all`). Shares are made by the owner (the `listkeeper share` command for now);
 * the recipient reaches shared items by id: get_item, update_items, chat and search.
 */
import type { Knex } from 'knex';
import { emit } from '../changes/outbox.js';

export interface ShareRow {
  id: string;
  owner_id: string;
  recipient_id: string;
  item_id: string | null;
  list_id: string | null;
  created_at: Date;
}

/** Shares an item or a list of its owner with a recipient; returns the share. */
export async function createShare(db: Knex, target: { itemId?: string; listId?: string }, recipientId: string): Promise<ShareRow> {
  return db.transaction(async (trx) => {
    const owner = target.itemId
      ? ((await trx('items').where({ id: target.itemId }).whereNull('deleted_at').first('owner_id')) as { owner_id: string } | undefined)
      : ((await trx('lists').where({ id: target.listId }).whereNull('deleted_at').first('owner_id')) as { owner_id: string } | undefined);
    if (!owner) throw new Error(`No live ${target.itemId ? 'item' : 'list'} ${target.itemId ?? target.listId}.`);
    if (owner.owner_id === recipientId) throw new Error('An item or list cannot be shared with its own owner.');
    const [share] = (await trx('shares')
      .insert({ owner_id: owner.owner_id, recipient_id: recipientId, item_id: target.itemId ?? null, list_id: target.listId ?? null })
      .returning('*')) as ShareRow[];
    await touchShared(trx, share!);
    return share!;
  });
}

/** Removes a share; the recipient loses access at once. */
export async function removeShare(db: Knex, shareId: string): Promise<boolean> {
  return db.transaction(async (trx) => {
    const share = (await trx('shares').where({ id: shareId }).first()) as ShareRow | undefined;
    if (!share) return false;
    await trx('shares').where({ id: shareId }).delete();
    await touchShared(trx, share);
    return true;
  });
}

/** Who may read an item: its owner and everyone it or its list is shared with. */
export async function readersOf(db: Knex, itemIds: string[]): Promise<Map<string, string[]>> {
  if (itemIds.length === 0) return new Map();
  const rows = (await db('items as i')
    .whereIn('i.id', itemIds)
    .select('i.id', db.raw(`${ITEM_READERS} AS readers`))) as { id: string; readers: string[] }[];
  return new Map(rows.map((r) => [r.id, [...new Set(r.readers)]]));
}

/**
 * The readers of the item row aliased `i`, as a SQL expression for a statement that reads the
 * item anyway (search's): an array of its owner and whoever it or its list is shared with,
 * which may name one person twice.
 */
export const ITEM_READERS = `(SELECT array_remove(array_agg(DISTINCT s.recipient_id) || array[i.owner_id], NULL)
    FROM shares s WHERE s.item_id = i.id OR s.list_id = i.list_id)`;

/** Search and events learn about a share change through the outbox, item by item. */
async function touchShared(trx: Knex, share: ShareRow): Promise<void> {
  const ids = share.item_id ? [share.item_id] : ((await trx('items').where({ list_id: share.list_id }).pluck('id')) as string[]);
  for (const id of ids) await emit(trx, 'item', id, { op: 'share', ownerId: share.owner_id });
}

/** True when a person an item is shared with has starred it (their own star, not the owner's). */
export async function isRecipientFavorite(db: Knex, userId: string, itemId: string): Promise<boolean> {
  return (await db('recipient_favorites').where({ user_id: userId, item_id: itemId }).first()) !== undefined;
}
