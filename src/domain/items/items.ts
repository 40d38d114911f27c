/**
 * Items: loading what a person may reach (their own, and items shared with them), the row
 * shape of list reads, due dates and task status.
 * @see openapi/openapi.yaml components/schemas/Item
 */
import type { Knex } from 'knex';
import { inReach } from '../reach.js';
import { preparedRaw } from '../../store/prepared.js';
import { keepsDueDate, keepsStatus, type ListRow } from '../lists/lists.js';
import type { StoredValues } from '../lists/values.js';
import { iso, parseIsoInstant, startOfLocalDay } from '../time.js';
import { parseDue } from './due-words.js';
import { describe } from './recurrence.js';
import type { AttachmentRow, ChatRow, ItemDbRow, ItemRowDto, TaskStatus } from './row-types.js';

export { TASK_STATUSES, type ItemDbRow, type ItemRowDto, type TaskStatus } from './row-types.js';

/** How the caller reaches an item: their own, on a list shared with them, or shared one by one. */
export type Access = 'own' | 'all' | 'titleAndBody';
export interface AccessibleItem {
  row: ItemDbRow;
  access: Access;
}

/**
 * Live items among `ids` that `userId` may reach, with how; ids they may not reach are absent.
 * `forUpdate` locks the rows (in id order, so two writers never wait on each other in a cycle)
 * until the transaction `trx` ends: a writer then works on the rows as they are, not as read
 * before another writer committed.
 */
export async function loadAccessible(trx: Knex, userId: string, ids: string[], options: { forUpdate?: boolean } = {}): Promise<Map<string, AccessibleItem>> {
  if (ids.length === 0) return new Map();
  const query = trx('items as i')
    .whereIn('i.id', [...new Set(ids)])
    .whereNull('i.deleted_at');
  if (options.forUpdate) query.orderBy('i.id').forUpdate();
  const rows = (await query.select('i.*', trx.raw(`${ACCESS_SQL} AS access`, [userId, userId, userId]))) as (ItemDbRow & { access: Access | null })[];
  const out = new Map<string, AccessibleItem>();
  // An item on a list outside the connection's grant is not reachable (domain/reach.ts).
  for (const { access, ...row } of rows) if (access && inReach(row.list_id)) out.set(row.id, { row, access });
  return out;
}

/** How user ? (three times) reaches item `i`: 'own', 'all' (its list is shared with them), 'titleAndBody' (shared one by one) or null. */
const ACCESS_SQL = `CASE WHEN i.owner_id = ? THEN 'own'
      WHEN EXISTS (SELECT 1 FROM shares s WHERE s.recipient_id = ? AND s.list_id = i.list_id) THEN 'all'
      WHEN EXISTS (SELECT 1 FROM shares s WHERE s.recipient_id = ? AND s.item_id = i.id) THEN 'titleAndBody'
 END`;

const LIST_COLUMNS = [
  'id',
  'owner_id',
  'name',
  'icon',
  'instructions',
  'title_label',
  'layout',
  'system_role',
  'properties',
  'created_at',
  'updated_at',
  'deleted_at',
  'purges_at',
] as const satisfies readonly (keyof ListRow)[];

/** A subtask as get_item lists it. */
export type ChildRow = Pick<ItemDbRow, 'id' | 'title' | 'task_status' | 'due_at'>;

/**
 * One live item that `userId` may reach, with its list, attachments (oldest first), the
 * last 50 messages of its chat (newest first) and its live subtasks (oldest first), in one
 * statement; null when they may not. Each round trip to Postgres is a large part of what a
 * read costs on a busy machine (bench/README.md).
 */
export async function loadItemForReading(
  db: Knex,
  userId: string,
  id: string,
): Promise<{ item: AccessibleItem; list: ListRow; attachments: AttachmentRow[]; chat: ChatRow[]; children: ChildRow[] } | null> {
  const listSelect = LIST_COLUMNS.map((c) => `l.${c} AS "list.${c}"`).join(', ');
  const result = await preparedRaw<{ rows: Record<string, unknown>[] }>(
    db,
    `SELECT i.*, ${ACCESS_SQL} AS access, ${listSelect},
            (SELECT coalesce(json_agg(json_build_object('id', a.id, 'item_id', a.item_id, 'bucket_path', a.bucket_path, 'mime_type', a.mime_type, 'bytes', a.bytes) ORDER BY a.created_at), '[]')
               FROM attachments a WHERE a.item_id = i.id) AS attachment_rows,
            (SELECT coalesce(json_agg(json_build_object('author_kind', c.author_kind, 'author_name', c.author_name, 'text', c.text, 'needs_input', c.needs_input) ORDER BY c.created_at DESC), '[]')
               FROM (SELECT * FROM chat_messages WHERE item_id = i.id ORDER BY created_at DESC LIMIT 50) c) AS chat_rows,
            (SELECT coalesce(json_agg(json_build_object('id', s.id, 'title', s.title, 'task_status', s.task_status, 'due_at', s.due_at) ORDER BY s.created_at, s.created_seq), '[]')
               FROM items s WHERE s.parent_id = i.id AND s.deleted_at IS NULL) AS child_rows
       FROM items i JOIN lists l ON l.id = i.list_id
      WHERE i.id = ? AND i.deleted_at IS NULL`,
    [userId, userId, userId, id],
  );
  const row = result.rows[0];
  if (!row || row.access === null || !inReach(String(row.list_id))) return null;
  const item: Record<string, unknown> = {};
  const list: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith('list.')) list[key.slice(5)] = value;
    else if (key !== 'access' && key !== 'attachment_rows' && key !== 'chat_rows' && key !== 'child_rows') item[key] = value;
  }
  return {
    item: { row: item as unknown as ItemDbRow, access: row.access as Access },
    list: list as unknown as ListRow,
    attachments: row.attachment_rows as AttachmentRow[],
    chat: row.chat_rows as ChatRow[],
    // JSON carries due_at as text: a Date, as the driver gives it elsewhere.
    children: (row.child_rows as ChildRow[]).map((c) => ({ ...c, due_at: c.due_at === null ? null : new Date(c.due_at) })),
  };
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
    ...(due ? { recurrence: recurrenceDto(row) } : {}),
    labels: row.labels ?? [],
    parentId: row.parent_id ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** How a task repeats, as the API shows it; null when it does not. */
function recurrenceDto(row: ItemDbRow): ItemRowDto['recurrence'] {
  if (!row.recurrence) return null;
  return {
    rule: row.recurrence,
    text: describe(row.recurrence),
    completions: row.recurrence_completions ?? 0,
    lastCompletedAt: iso(row.last_completed_at ?? null),
  };
}

/**
 * A due date as callers write it: ISO 8601 (a date alone is the start of that day in
 * `timeZone`), else words read in `timeZone` at `now` ("tomorrow 5pm", "next Friday");
 * null when it is neither.
 */
export function readDueAt(value: string, timeZone: string, now: Date): { dueAt: Date; hasDueTime: boolean } | null {
  const iso8601 = parseDueAt(value, timeZone);
  if (iso8601) return iso8601;
  // Text that starts like an ISO date and is not one (a 30th of February, an offset of 24 hours) is refused, not guessed at.
  if (/^\s*[+-]?\d{4,6}-\d/.test(value) || /^\s*\d+\s*$/.test(value)) return null;
  const words = parseDue(value, timeZone, now);
  return words ? { dueAt: words.at, hasDueTime: words.hasTime } : null;
}

/**
 * A due date from ISO 8601: a date alone is due at the start of that day in the person's
 * time zone (`hasDueTime` false); a date-time keeps its time, read in that zone when it has no
 * offset (`2026-12-01T09:00` is nine in the morning where the person is).
 */
export function parseDueAt(value: string, timeZone: string): { dueAt: Date; hasDueTime: boolean } | null {
  const text = value.trim();
  const at = parseIsoInstant(text, timeZone);
  if (!at) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return { dueAt: startOfLocalDay(new Date(`${text}T12:00:00Z`), timeZone), hasDueTime: false };
  return { dueAt: at, hasDueTime: true };
}

/** Status columns for a status change: `completedAt` is set on completion and cleared when reopened. */
export function statusColumns(
  current: Pick<ItemDbRow, 'task_status' | 'completed_at'> | null,
  next: TaskStatus,
  now: Date,
): { task_status: TaskStatus; completed_at: Date | null } {
  if (next === 'completed')
    return { task_status: next, completed_at: current?.task_status === 'completed' && current.completed_at ? current.completed_at : now };
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

/** An item as item events carry it with `includeItem`: as it is now; null once it is gone. */
export async function itemSnapshot(db: Knex, itemId: string): Promise<ItemRowDto | null> {
  const row = (await db('items').where({ id: itemId }).first()) as ItemDbRow | undefined;
  if (!row) return null;
  const list = (await listsById(db, [row.list_id])).get(row.list_id);
  return list ? itemRowDto(row, list) : null;
}
