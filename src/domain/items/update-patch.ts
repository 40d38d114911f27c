/**
 * What one entry of update_items changes on one item, as columns of its row: its values, status,
 * due date, parent, repetition, reminder, assignment and body, each checked against its list
 * (a list without a status takes no taskStatus, and so on). A check that fails throws a
 * Refusal; update.ts runs the entries, locks and writes.
 * @see openapi/openapi.yaml update_items
 */
import type { Knex } from 'knex';
import type { OpInput } from '../../core/context.js';
import { keepsDueDate, keepsStatus, type ListRow } from '../lists/lists.js';
import { parseDueAt, statusColumns, TASK_STATUSES, type AccessibleItem, type ItemDbRow, type TaskStatus } from './items.js';
import { resolveValues, ValueError, withNewOptions } from '../lists/values.js';
import { mergeBody, type LegacyMode } from '../body/legacy-mode.js';
import { applyEdits, bodyVersion, parseEdit, type BodyEdit } from '../body/index.js';
import { clearedDueRefusal, firstDue, nextOccurrence, parseRecurrence } from './recurrence.js';
import { followDue, readReminder } from './reminders.js';
import { checkParent, openSubtasks, ParentNotFound } from './subtasks.js';

export type Input = OpInput<'update_items'>;
export type Entry = Input['items'][number];

/** A refusal of one entry: the batch stops there and the answer names what was written before it. */
export class Refusal extends Error {
  constructor(
    readonly code: 'toolError' | 'notFound' | 'invalid',
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Fields the owner keeps on an item shared one by one (`editable: titleAndBody`). */
const OWNER_FIELDS = ['values', 'imageUrls', 'clearImages', 'assignedAgent', 'labels', 'recurrence', 'reminderAt', 'parentId'] as const;

export type Due = { dueAt: Date; hasDueTime: boolean };

export interface UpdateArgs {
  entry: Entry;
  index: number;
  item: AccessibleItem | undefined;
  lists: Map<string, ListRow>;
  input: Input;
  mode: LegacyMode;
  due: Due | null | undefined;
  now: Date;
  timeZone: string;
  spellings: Map<string, string>;
}

/**
 * The entry's `values`, merged into the row's (`""` clears one) and put in `patch`; a select
 * label new to the list becomes an option (`properties`), and the status and due-date
 * properties, when sent, stand for `taskStatus` and `dueAt`. Undefined when the entry sets none.
 */
export function valuesPatch(
  row: ItemDbRow,
  list: ListRow,
  entry: Entry,
  patch: Record<string, unknown>,
): { properties: ListRow['properties']; taskStatus?: TaskStatus; dueChange?: Due | null } | undefined {
  if (entry.values === undefined || entry.values === null) return undefined;
  let resolved: ReturnType<typeof resolveValues>;
  try {
    resolved = resolveValues(list.properties, entry.values);
  } catch (err) {
    if (err instanceof ValueError) throw new Refusal('toolError', err.message);
    throw err;
  }
  const values = { ...row.values };
  for (const [id, value] of Object.entries(resolved.set)) {
    if (value === null) delete values[id];
    else values[id] = value;
  }
  patch.values = JSON.stringify(values);
  const out: { properties: ListRow['properties']; taskStatus?: TaskStatus; dueChange?: Due | null } = {
    properties: withNewOptions(list.properties, resolved.newOptions),
  };
  if (resolved.taskStatus !== undefined && resolved.taskStatus !== null) out.taskStatus = resolved.taskStatus as TaskStatus;
  if (resolved.dueAt !== undefined) {
    if (resolved.dueAt === null) out.dueChange = null;
    else {
      const parsed = parseDueAt(resolved.dueAt, 'UTC');
      if (!parsed) throw new Refusal('toolError', `'${resolved.dueAt}' is not an ISO 8601 date for the due date.`);
      out.dueChange = parsed;
    }
  }
  return out;
}

/** A new status in `patch`, refused on a list without one and when completing a task with open subtasks. */
export async function statusPatch(trx: Knex, row: ItemDbRow, list: ListRow, taskStatus: TaskStatus, now: Date, patch: Record<string, unknown>): Promise<void> {
  if (!keepsStatus(list)) throw new Refusal('toolError', `list '${list.name}' keeps no status, so taskStatus cannot be set on this item.`);
  if (!TASK_STATUSES.includes(taskStatus)) throw new Refusal('toolError', `taskStatus must be one of ${TASK_STATUSES.join(', ')}.`);
  Object.assign(patch, statusColumns(row, taskStatus, now));
  if (taskStatus === 'completed' && row.task_status !== 'completed') {
    const open = (await openSubtasks(trx, [row.id])).get(row.id) ?? [];
    if (open.length)
      throw new Refusal(
        'toolError',
        `'${row.title ?? row.id}' has ${open.length} open subtask${open.length > 1 ? 's' : ''} (${open.slice(0, 5).join(', ')}): complete ${open.length > 1 ? 'them' : 'it'} first, or list ${open.length > 1 ? 'them' : 'it'} before it in the same call.`,
      );
  }
}

/** A new due date in `patch` (none clears it and its reminder), refused on a list without one. */
export function duePatch(list: ListRow, dueChange: Due | null, patch: Record<string, unknown>): void {
  if (!keepsDueDate(list)) throw new Refusal('toolError', `list '${list.name}' keeps no due date, so dueAt cannot be set on this item.`);
  Object.assign(
    patch,
    dueChange === null ? { due_at: null, has_due_time: null, reminder_at: null } : { due_at: dueChange.dueAt, has_due_time: dueChange.hasDueTime },
  );
}

/** The parent an entry's `parentId` names (`""` detaches), checked: the owner's, on the same list, no cycle. */
export async function parentOf(trx: Knex, row: ItemDbRow, parentId: string): Promise<string | null> {
  if (parentId.trim() === '') return null;
  try {
    await checkParent(trx, row.owner_id, parentId, row.list_id, { id: row.id });
  } catch (err) {
    if (err instanceof ValueError) throw new Refusal(err instanceof ParentNotFound ? 'notFound' : 'toolError', err.message);
    throw err;
  }
  return parentId;
}

/**
 * What the entry's `recurrence` and a completion do to a repeating task: a new rule (with a
 * first due date when the task has none), no rule (`""`), or, when the task is completed,
 * its next occurrence instead: reopened, due then, the completion counted. `completed` names
 * the occurrence completed, for the activity log.
 */
export function repeatPatch(
  row: ItemDbRow,
  list: ListRow,
  entry: Entry,
  patch: Record<string, unknown>,
  args: UpdateArgs,
): { patch: Record<string, unknown>; completed: string | null } | null {
  const out: Record<string, unknown> = {};
  let rule = row.recurrence;
  if (entry.recurrence !== undefined && entry.recurrence !== null) {
    if (entry.recurrence.trim() === '') rule = null;
    else {
      if (!keepsDueDate(list))
        throw new Refusal('toolError', `list '${list.name}' keeps no due date, so this item cannot repeat; move it to a list with task columns first.`);
      try {
        rule = parseRecurrence(entry.recurrence).rule;
      } catch (err) {
        if (err instanceof ValueError) throw new Refusal('toolError', err.message);
        throw err;
      }
    }
    out.recurrence = rule;
  }
  if (!rule || !keepsDueDate(list)) return Object.keys(out).length ? { patch: out, completed: null } : null;
  if (patch.due_at === null) throw new Refusal('toolError', clearedDueRefusal(row.title ?? row.id, rule));
  const dueAt = (patch.due_at !== undefined ? patch.due_at : row.due_at) as Date | null;
  const hasTime = (patch.has_due_time !== undefined ? patch.has_due_time : row.has_due_time) as boolean | null;
  const due = dueAt ? { at: dueAt, hasTime: hasTime ?? false } : null;
  if (!due) {
    const first = firstDue(rule, null, args.now, args.timeZone);
    if (first) Object.assign(out, { due_at: first.at, has_due_time: first.hasTime });
  }
  // Completing a repeating task that was open moves it on instead (a rule that has ended lets it complete).
  if (patch.task_status === 'completed' && row.task_status !== 'completed') {
    const next = nextOccurrence(rule, due, args.now, args.timeZone);
    if (next) {
      Object.assign(out, {
        task_status: 'todo',
        completed_at: null,
        due_at: next.at,
        has_due_time: next.hasTime,
        recurrence_completions: (row.recurrence_completions ?? 0) + 1,
        last_completed_at: args.now,
      });
      return { patch: out, completed: due ? `due ${due.at.toISOString()}` : 'no due date' };
    }
  }
  return Object.keys(out).length ? { patch: out, completed: null } : null;
}

/**
 * The reminder columns: `reminderAt` as the entry writes it (against the due date the task will
 * have), or a reminder kept before the due date following a due date that moved (a new
 * occurrence included).
 */
export function reminderPatch(row: ItemDbRow, list: ListRow, entry: Entry, patch: Record<string, unknown>, args: UpdateArgs): void {
  const due = (patch.due_at !== undefined ? patch.due_at : row.due_at) as Date | null;
  if (entry.reminderAt !== undefined && entry.reminderAt !== null) {
    if (!keepsDueDate(list))
      throw new Refusal('toolError', `list '${list.name}' keeps no due date, so this item takes no reminder; move it to a list with task columns first.`);
    try {
      Object.assign(patch, readReminder(entry.reminderAt, due, args.timeZone, args.now));
    } catch (err) {
      if (err instanceof ValueError) throw new Refusal('toolError', err.message);
      throw err;
    }
  } else if (patch.due_at !== undefined && row.reminder_offset_minutes !== null) {
    Object.assign(patch, followDue(row.reminder_offset_minutes, due) ?? { reminder_at: null, reminder_offset_minutes: null });
  }
}

/** The new `assigned_agent` when the entry changes it ("" unassigns), else undefined. Tasks only. */
export function assignment(row: ItemDbRow, list: ListRow, entry: Entry): string | null | undefined {
  if (entry.assignedAgent === undefined || entry.assignedAgent === null) return undefined;
  if (!keepsStatus(list))
    throw new Refusal('toolError', `assignedAgent is for tasks, and list '${list.name}' keeps no status; move the item to a tasks list first.`);
  const name = entry.assignedAgent.trim() || null;
  return name === row.assigned_agent ? undefined : name;
}

export function refuseOwnerFields(entry: Entry, input: Input, access: AccessibleItem['access']): void {
  if (access !== 'titleAndBody') return;
  const named = [
    ...OWNER_FIELDS.filter((f) => entry[f] !== undefined && entry[f] !== null),
    ...(['taskStatus', 'dueAt', 'archived'] as const).filter((f) => input[f] !== undefined && input[f] !== null),
  ];
  if (named.length) {
    throw new Refusal(
      'toolError',
      `this item is shared with you one by one: ${named.join(', ')} belong${named.length === 1 ? 's' : ''} to its owner; you may change its title and body.`,
    );
  }
}

/** The new body from `edits` or the legacy `body` + mode, or null when the entry changes neither. */
export function changeBody(row: ItemDbRow, entry: Entry, mode: LegacyMode, anchor: string | null): { body: string; applied: string[] } | null {
  const hasEdits = entry.edits !== undefined && entry.edits !== null;
  const hasBody = entry.body !== undefined && entry.body !== null;
  if (hasEdits && hasBody) throw new Refusal('toolError', 'send either edits (block edits by handle) or body (with mode), not both.');
  if (hasBody) {
    const merged = mergeBody(row.body, entry.body!, mode, anchor);
    if ('error' in merged) throw new Refusal('toolError', merged.error, bodyDetails(row.body));
    return { body: merged.body, applied: [`${mode} body`] };
  }
  if (!hasEdits) return null;
  const edits: BodyEdit[] = [];
  for (const [i, raw] of entry.edits!.entries()) {
    const parsed = parseEdit(raw);
    if (typeof parsed === 'string') throw new Refusal('toolError', `edits[${i}]: ${parsed}`, bodyDetails(row.body));
    edits.push(parsed);
  }
  const result = applyEdits(row.body ?? '', edits);
  if (!result.ok) {
    throw new Refusal(
      'toolError',
      `edits[${result.editIndex}]: ${result.error} Nothing was written on this item; details.body has its current body with fresh handles.`,
      {
        body: result.editable.text,
        bodyVersion: result.version,
      },
    );
  }
  return { body: result.body, applied: result.applied };
}

function bodyDetails(body: string | null): Record<string, unknown> {
  return { bodyVersion: bodyVersion(body ?? '') };
}
