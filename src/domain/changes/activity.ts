/** The activity log: every write, marked when it came through a connection (MCP or API) rather than the person's own pages. */
import type { Knex } from 'knex';
import { onPersonSurface, type Principal } from '../../core/context.js';

export interface ActivityEntry {
  action: string;
  summary: string;
  itemId?: string | null;
  listId?: string | null;
}

/** Records one write in the caller's activity log, in the caller's transaction. */
export async function recordActivity(trx: Knex, principal: Principal, entry: ActivityEntry): Promise<void> {
  await trx('activity').insert({
    user_id: principal.userId,
    action: entry.action,
    summary: entry.summary.slice(0, 300),
    item_id: entry.itemId ?? null,
    list_id: entry.listId ?? null,
    via_connection: !onPersonSurface(principal),
    client_name: principal.clientName,
  });
}

/** Records a write the service made itself for the person (an automation run), in the caller's transaction. */
export async function recordServiceActivity(trx: Knex, userId: string, entry: ActivityEntry & { by: string }): Promise<void> {
  await trx('activity').insert({
    user_id: userId,
    action: entry.action,
    summary: entry.summary.slice(0, 300),
    item_id: entry.itemId ?? null,
    list_id: entry.listId ?? null,
    via_connection: false,
    client_name: entry.by.slice(0, 200),
  });
}

/** Who made a change, as the person reads it. */
export type ActivityAuthor = { kind: 'person' } | { kind: 'apiKey' } | { kind: 'app'; name: string } | { kind: 'automation'; name: string };

/** One change in the person's activity, newest first; the item or list it names, while they are not deleted. */
export interface ActivityLine {
  id: string;
  at: Date;
  action: string;
  summary: string;
  author: ActivityAuthor;
  itemId: string | null;
  listId: string | null;
}

interface ActivityRow {
  id: string;
  at: Date;
  action: string;
  summary: string;
  via_connection: boolean;
  client_name: string | null;
  item_id: string | null;
  list_id: string | null;
}

/**
 * Who wrote a row: a connection's row names its OAuth app (the API key has no name), and a
 * row not through a connection is the person's own unless the service wrote it for an
 * automation, which names it (recordServiceActivity).
 */
export function authorOf(row: { via_connection: boolean; client_name: string | null }): ActivityAuthor {
  if (row.via_connection) return row.client_name === null ? { kind: 'apiKey' } : { kind: 'app', name: row.client_name };
  return row.client_name === null ? { kind: 'person' } : { kind: 'automation', name: row.client_name };
}

/** What `before` may be: an activity row's id, as the previous page's `older` gave it. */
const ROW_ID = /^[1-9][0-9]{0,17}$/;

/**
 * One page of a person's activity, newest first, keyed on (at, id) so paging is stable while
 * new changes arrive: `before` is the id of the last row of the previous page, `older` the one
 * to ask with for the next (null on the last page). `onlyOthers` leaves out the person's own
 * writes and keeps what agents, apps, the API key and automations did.
 */
export async function activityPage(
  db: Knex,
  userId: string,
  options: { onlyOthers?: boolean; before?: string | null; limit?: number } = {},
): Promise<{ lines: ActivityLine[]; older: string | null }> {
  const limit = options.limit ?? 50;
  const query = db('activity as a')
    .where('a.user_id', userId)
    .orderBy([
      { column: 'a.at', order: 'desc' },
      { column: 'a.id', order: 'desc' },
    ])
    .limit(limit + 1)
    .select(
      'a.id',
      'a.at',
      'a.action',
      'a.summary',
      'a.via_connection',
      'a.client_name',
      db.raw('(SELECT i.id FROM items i WHERE i.id = a.item_id AND i.deleted_at IS NULL) AS item_id'),
      db.raw('(SELECT l.id FROM lists l WHERE l.id = a.list_id AND l.deleted_at IS NULL) AS list_id'),
    );
  if (options.onlyOthers) query.andWhere((q) => q.where('a.via_connection', true).orWhereNotNull('a.client_name'));
  if (options.before && ROW_ID.test(options.before)) {
    query.andWhereRaw('(a.at, a.id) < (SELECT b.at, b.id FROM activity b WHERE b.id = ? AND b.user_id = ?)', [options.before, userId]);
  }
  const rows = (await query) as ActivityRow[];
  const page = rows.slice(0, limit);
  return {
    lines: page.map((r) => ({
      id: String(r.id),
      at: r.at,
      action: r.action,
      summary: r.summary,
      author: authorOf(r),
      itemId: r.item_id,
      listId: r.list_id,
    })),
    older: rows.length > limit ? String(page[page.length - 1]!.id) : null,
  };
}
