/**
 * The filters and sorts of list_items (outside the changes feed): one list's items or the
 * Tasks set, by status, text, dates and ids.
 * @see openapi/openapi.yaml list_items
 */
import type { Knex } from 'knex';
import type { OpInput } from '../core/context.js';
import { TASK_STATUSES, type ItemDbRow } from './rows.js';

export type ItemFilter = Omit<OpInput<'list_items'>, 'changedSince' | 'listId' | 'includeImageUrls'>;

/** Live, unarchived, non-template items of `listIds` matching the filter, sorted and cut to `limit` (default 50). */
export async function filterItems(db: Knex, listIds: string[], input: ItemFilter, statusApplies: boolean): Promise<ItemDbRow[]> {
  if (listIds.length === 0) return [];
  const q = db('items').whereIn('list_id', listIds).whereNull('deleted_at').whereNull('archived_at').where('is_template', false);
  if (input.ids?.length) q.whereIn('id', input.ids);
  if (input.query) {
    for (const word of input.query.split(/\s+/).filter(Boolean).slice(0, 10)) {
      const like = `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q.where((w) => w.whereILike('title', like).orWhereILike('body', like));
    }
  }
  const completedWindow = input.completedAfter !== undefined || input.completedBefore !== undefined;
  if (statusApplies) {
    const statuses = input.taskStatus?.length ? input.taskStatus : completedWindow ? ['completed'] : TASK_STATUSES.filter((s) => s !== 'completed');
    q.where((w) => {
      w.whereIn('task_status', statuses);
      if (statuses.includes('todo')) w.orWhereNull('task_status');
    });
  }
  const range = (column: string, after?: string, before?: string) => {
    if (after !== undefined) q.where(column, '>=', after);
    if (before !== undefined) q.where(column, '<', before);
  };
  range('due_at', input.dueAfter, input.dueBefore);
  range('created_at', input.createdAfter, input.createdBefore);
  range('updated_at', input.updatedAfter, input.updatedBefore);
  range('completed_at', input.completedAfter, input.completedBefore);
  switch (input.sort ?? 'due') {
    case 'created':
      q.orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'created_seq', order: 'desc' },
      ]);
      break;
    case 'updated':
      q.orderBy([
        { column: 'updated_at', order: 'desc' },
        { column: 'created_seq', order: 'desc' },
      ]);
      break;
    case 'completed':
      q.orderByRaw('completed_at DESC NULLS LAST, created_seq DESC');
      break;
    default:
      q.orderByRaw('due_at ASC NULLS LAST, created_at ASC, created_seq ASC');
  }
  return (await q.limit(input.limit ?? 50)) as ItemDbRow[];
}
