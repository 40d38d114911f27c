import type { Handler, OpOutput } from '../core/context.js';
import { iso } from '../domain/time.js';

type Entry = OpOutput<'list_deleted'>['items'][number];

/** GET /trash: lists and items deleted in the retention window, newest first, with purgesAt. */
export const list_deleted: Handler<'list_deleted'> = async ({ db, principal }, input) => {
  const limit = input.limit ?? 25;
  const entries: Entry[] = [];
  if (input.type !== 'list') {
    const items = (await db('items as i')
      .join('lists as l', 'l.id', 'i.list_id')
      .where('i.owner_id', principal.userId)
      .whereNotNull('i.deleted_at')
      .orderBy('i.deleted_at', 'desc')
      .limit(limit)
      .select('i.id', 'i.title', 'i.body', 'i.deleted_at', 'i.purges_at', 'i.list_id', 'l.name as list_name')) as {
      id: string;
      title: string | null;
      body: string | null;
      deleted_at: Date;
      purges_at: Date;
      list_id: string;
      list_name: string;
    }[];
    for (const r of items) {
      entries.push({
        type: 'item',
        id: r.id,
        title: r.title,
        deletedAt: iso(r.deleted_at)!,
        purgesAt: iso(r.purges_at)!,
        listId: r.list_id,
        listName: r.list_name,
        snippet: r.body ? r.body.slice(0, 140) : null,
      });
    }
  }
  if (input.type !== 'item') {
    const lists = (await db('lists as l')
      .where('l.owner_id', principal.userId)
      .whereNotNull('l.deleted_at')
      .orderBy('l.deleted_at', 'desc')
      .limit(limit)
      .select(
        'l.id',
        'l.name',
        'l.deleted_at',
        'l.purges_at',
        db.raw('(SELECT count(*)::int FROM items i WHERE i.deleted_with_list = l.id AND i.deleted_at IS NOT NULL) AS item_count'),
      )) as { id: string; name: string; deleted_at: Date; purges_at: Date; item_count: number }[];
    for (const r of lists)
      entries.push({ type: 'list', id: r.id, title: r.name, deletedAt: iso(r.deleted_at)!, purgesAt: iso(r.purges_at)!, itemCount: r.item_count });
  }
  entries.sort((a, b) => b.deletedAt.localeCompare(a.deletedAt));
  return { count: entries.length, items: entries };
};
