/**
 * Items: loading what a person may reach (their own, and items shared with them), the row
 * shape of list reads, due dates and task status.
 * @see ../../../shared/spec/service.md "Item"
 */
import type { Knex } from 'knex';
import type { components } from '../generated/api.js';
import { keepsDueDate, keepsStatus, type ListRow } from './lists.js';
import type { StoredValues } from './values.js';
import { iso, parseIsoInstant, startOfLocalDay } from './time.js';

export type ItemRowDto = components['schemas']['ItemRow'];
export type TaskStatus = 'todo' | 'inProgress' | 'completed';
export const TASK_STATUSES: TaskStatus[] = ['todo', 'inProgress', 'completed'];

export interface ItemDbRow {
  id: string;
  owner_id: string;
  list_id: string;
  title: string | null;
  body: string | null;
  task_status: TaskStatus | null;
  due_at: Date | null;
  has_due_time: boolean | null;
  reminder_at: Date | null;
  completed_at: Date | null;
  values: StoredValues;
  external_id: string | null;
  is_template: boolean;
  favorited: boolean;
  guidance_note: string | null;
  /** The agent a task is assigned to, by name (migration 20261122000400_events). */
  assigned_agent: string | null;
  archived_at: Date | null;
  deleted_at: Date | null;
  purges_at: Date | null;
  deleted_with_list: string | null;
  created_at: Date;
  updated_at: Date;
  edited_at: Date | null;
}

/** How the caller reaches an item: their own, on a list shared with them, or shared one by one. */
export type Access = 'own' | 'all' | 'titleAndBody';
export interface AccessibleItem { row: ItemDbRow; access: Access }

/**
 * Live items among `ids` that `userId` may reach, with how; ids they may not reach are absent.
 * `forUpdate` locks the rows (in id order, so two writers never wait on each other in a cycle)
 * until the transaction `trx` ends: a writer then works on the rows as they are, not as read
 * before another writer committed.
 */
export async function loadAccessible(trx: Knex, userId: string, ids: string[], options: { forUpdate?: boolean } = {}): Promise<Map<string, AccessibleItem>> {
  if (ids.length === 0) return new Map();
  const query = trx('items as i').whereIn('i.id', [...new Set(ids)]).whereNull('i.deleted_at');
  if (options.forUpdate) query.orderBy('i.id').forUpdate();
  const rows = (await query
    .select(
      'i.*',
      trx.raw(
        `CASE WHEN i.owner_id = ? THEN 'own'
              WHEN EXISTS (SELECT 1 FROM shares s WHERE s.recipient_id = ? AND s.list_id = i.list_id) THEN 'all'
              WHEN EXISTS (SELECT 1 FROM shares s WHERE s.recipient_id = ? AND s.item_id = i.id) THEN 'titleAndBody'
         END AS access`,
        [userId, userId, userId],
      ),
    )) as (ItemDbRow & { access: Access | null })[];
  const out = new Map<string, AccessibleItem>();
  for (const { access, ...row } of rows) if (access) out.set(row.id, { row, access });
  return out;
}

/**
 * The lists of the given items, by id (deleted lists included: a trashed list's items are
 * trashed too). `lock` takes row locks in id order until `trx` ends: `update` for a writer that
 * may change the list (new select options), `share` for one that only needs its properties to
 * stay as read.
 */
export async function listsById(trx: Knex, listIds: string[], options: { lock?: 'update' | 'share' } = {}): Promise<Map<string, ListRow>> {
  const unique = [...new Set(listIds)];
  if (unique.length === 0) return new Map();
  const query = trx('lists').whereIn('id', unique);
  if (options.lock) query.orderBy('id')[options.lock === 'update' ? 'forUpdate' : 'forShare']();
  const rows = (await query) as ListRow[];
  return new Map(rows.map((l) => [l.id, l]));
}

/** An item as list reads show it; status and due date only where the list keeps them. */
export function itemRowDto(row: ItemDbRow, list: Pick<ListRow, 'properties'>, extra: { isSharedWithMe?: boolean; favorited?: boolean } = {}): ItemRowDto {
  const status = keepsStatus(list);
  const due = keepsDueDate(list);
  return {
    id: row.id,
    listId: row.list_id,
    title: row.title,
    body: row.body,
    taskStatus: status ? (row.task_status ?? 'todo') : null,
    dueAt: due ? iso(row.due_at) : null,
    hasDueTime: due && row.due_at ? Boolean(row.has_due_time) : null,
    reminderAt: due ? iso(row.reminder_at) : null,
    completedAt: status ? iso(row.completed_at) : null,
    values: row.values ?? {},
    archivedAt: iso(row.archived_at),
    favorited: extra.favorited ?? row.favorited,
    externalId: row.external_id,
    isSharedWithMe: extra.isSharedWithMe ?? false,
    assignedAgent: row.assigned_agent ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * A due date from ISO 8601: a date alone is due at the start of that day in the person's
 * time zone (`hasDueTime` false); a date-time keeps its time.
 */
export function parseDueAt(value: string, timeZone: string): { dueAt: Date; hasDueTime: boolean } | null {
  const text = value.trim();
  const at = parseIsoInstant(text);
  if (!at) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return { dueAt: startOfLocalDay(new Date(`${text}T12:00:00Z`), timeZone), hasDueTime: false };
  return { dueAt: at, hasDueTime: true };
}

/** Status columns for a status change: `completedAt` is set on completion and cleared when reopened. */
export function statusColumns(current: Pick<ItemDbRow, 'task_status' | 'completed_at'> | null, next: TaskStatus, now: Date): { task_status: TaskStatus; completed_at: Date | null } {
  if (next === 'completed') return { task_status: next, completed_at: current?.task_status === 'completed' && current.completed_at ? current.completed_at : now };
  return { task_status: next, completed_at: null };
}

/** The label of an item: its title, else its first non-empty value as text, else its list's name. */
export function firstValueText(values: StoredValues, order: string[]): string | null {
  for (const id of order) {
    const v = values[id];
    if (v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)) return Array.isArray(v) ? v.join(', ') : String(v);
  }
  return null;
}
