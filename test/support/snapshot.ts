/** A snapshot of one account's rows, to show that a call changed nothing of theirs. */
import { sequencePending } from '../../src/domain/changes/feed.js';
import type { TestServer } from './server.js';

/**
 * Every row that belongs to `userId` or hangs off one of their items or lists, in every table,
 * as one string. The changes feed's sequencer stamps positions on any account's changed rows
 * when anyone reads the feed; it runs first, so only real changes show.
 */
export async function snapshotOf(server: Pick<TestServer, 'db'>, userId: string): Promise<string> {
  await sequencePending(server.db);
  const columns = (await server
    .db('information_schema.columns')
    .where({ table_schema: 'public' })
    .whereIn('column_name', ['owner_id', 'user_id', 'author_user_id', 'recipient_id', 'item_id', 'list_id'])
    .select('table_name', 'column_name')) as { table_name: string; column_name: string }[];
  const itemIds = server.db('items').where({ owner_id: userId }).select('id');
  const listIds = server.db('lists').where({ owner_id: userId }).select('id');
  const out: Record<string, unknown[]> = {};
  for (const { table_name: table, column_name: column } of columns.sort((a, b) =>
    `${a.table_name}.${a.column_name}`.localeCompare(`${b.table_name}.${b.column_name}`),
  )) {
    const q = server.db(table);
    if (column === 'item_id') q.whereIn(column, itemIds);
    else if (column === 'list_id') q.whereIn(column, listIds);
    else q.where(column, userId);
    const rows = (await q.select('*')) as Record<string, unknown>[];
    out[`${table}.${column}`] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return JSON.stringify(out);
}
