/** The activity log: every write, marked when it came through a connection (MCP or API) rather than the person's own pages. */
import type { Knex } from 'knex';
import type { Principal } from '../core/context.js';

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
    via_connection: principal.via !== 'web',
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
