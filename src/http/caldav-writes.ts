/**
 * A task a CalDAV client PUT, written through the item operations: a new resource is
 * create_items, a changed one update_items with only the fields that differ from what the
 * client was shown, so an unchanged field is never written back. What the client sent is then
 * kept whole (src/domain/caldav/objects.ts), for what listkeeper has no field for.
 * @see docs/caldav.md
 */
import type { Knex } from 'knex';
import type { OperationContext } from '../core/context.js';
import { invoke } from '../operations/dispatch.js';
import type { ListRow } from '../domain/lists/lists.js';
import { findObject, itemOfUid, saveObject, type CalendarObject } from '../domain/caldav/objects.js';
import { dueInstant, readTodo, type TodoDue, type TodoFields } from '../domain/caldav/vtodo-read.js';
import { parseRecurrence } from '../domain/items/recurrence.js';

/** A refusal with a WebDAV status and precondition (RFC 4918 §16), rendered as `<D:error>` by src/http/caldav.ts. */
export class DavRefusal extends Error {
  constructor(
    readonly status: number,
    readonly condition: string,
    message: string,
  ) {
    super(message);
  }
}

export interface TaskWrite {
  db: Knex;
  context: OperationContext;
  list: ListRow;
  /** The resource name the client PUT to. */
  name: string;
  /** The task at that name as the client would read it now; null for a new one. */
  current: CalendarObject | null;
  text: string;
  timeZone: string;
  urlOf(id: string): string;
}

/** Writes the task and answers it as it now reads. */
export async function writeTask(write: TaskWrite): Promise<CalendarObject> {
  const { db, context, list, timeZone } = write;
  const { uid, fields } = readTodo(write.text, timeZone);
  const parentId = fields.parentUid ? await itemOfUid(db, list.owner_id, fields.parentUid) : null;
  const itemId = write.current ? await update(context, write.current, fields, parentId, timeZone) : await create(context, list, fields, parentId, timeZone);
  await saveObject(db, { itemId, ownerId: list.owner_id, name: write.name, uid, component: write.text });
  const written = await findObject(db, list, write.name, timeZone, write.urlOf);
  if (!written) throw new DavRefusal(409, 'resource-must-exist', 'The task was written and then moved or deleted at once: sync again.');
  return written;
}

async function create(context: OperationContext, list: ListRow, fields: TodoFields, parentId: string | null, timeZone: string): Promise<string> {
  const entry = {
    title: fields.title,
    body: fields.body,
    taskStatus: fields.status,
    ...(fields.due ? { dueAt: dueText(fields.due) } : {}),
    ...(rule(fields.recurrence) ? { recurrence: rule(fields.recurrence) } : {}),
    ...(reminderInput(fields, timeZone) ? { reminderAt: reminderInput(fields, timeZone) } : {}),
    ...(fields.labels.length ? { labels: fields.labels } : {}),
    ...(parentId ? { parentId } : {}),
  };
  const made = (await invoke(context, 'create_items', { params: {}, body: { listId: list.id, items: [entry] } })) as {
    items: { id: string }[];
    failed: { reason: string }[];
  };
  const failure = made.failed[0];
  if (failure || !made.items[0]) throw new DavRefusal(403, 'valid-calendar-data', `This task cannot be kept: ${failure?.reason ?? 'it was not made'}`);
  return made.items[0].id;
}

async function update(context: OperationContext, current: CalendarObject, fields: TodoFields, parentId: string | null, timeZone: string): Promise<string> {
  const shown = readTodo(current.ics, timeZone).fields;
  const entry: Record<string, unknown> = { itemId: current.itemId };
  const call: Record<string, unknown> = {};
  if (fields.title !== shown.title) entry.title = fields.title ?? '';
  if (fields.body !== shown.body) {
    entry.body = fields.body ?? '';
    Object.assign(call, { mode: 'replace', confirmReplace: true });
  }
  if (fields.labels.join('\n') !== shown.labels.join('\n')) entry.labels = fields.labels;
  if (rule(fields.recurrence) !== rule(shown.recurrence)) entry.recurrence = rule(fields.recurrence) ?? '';
  if (fields.parentUid !== shown.parentUid) entry.parentId = parentId ?? '';
  if (fields.status !== shown.status) call.taskStatus = fields.status;
  const dueMoved = !sameDue(fields.due, shown.due);
  if (dueMoved) call.dueAt = fields.due ? dueText(fields.due) : 'none';
  if (dueMoved || reminderMoment(fields, timeZone) !== reminderMoment(shown, timeZone)) entry.reminderAt = reminderInput(fields, timeZone) ?? '';
  if (Object.keys(entry).length > 1 || Object.keys(call).length > 0) await invoke(context, 'update_items', { params: {}, body: { ...call, items: [entry] } });
  return current.itemId;
}

function rule(recurrence: string | null): string | null {
  if (!recurrence) return null;
  try {
    return parseRecurrence(recurrence).rule;
  } catch {
    // A rule listkeeper cannot read stays in the kept text; the task does not repeat here.
    return null;
  }
}

function dueText(due: TodoDue): string {
  return 'date' in due ? due.date : due.at.toISOString();
}

function sameDue(a: TodoDue | null, b: TodoDue | null): boolean {
  return (a ? dueText(a) : null) === (b ? dueText(b) : null);
}

function reminderMoment(fields: TodoFields, timeZone: string): number | null {
  const r = fields.reminder;
  if (!r) return null;
  if ('at' in r) return r.at.getTime();
  return fields.due ? dueInstant(fields.due, timeZone).getTime() - r.beforeDueMinutes * 60_000 : null;
}

const UNITS: [string, number][] = [
  ['week', 10080],
  ['day', 1440],
  ['hour', 60],
  ['minute', 1],
];

/**
 * `reminderAt` as the item operations read it: a distance before the due time in words (so it
 * moves with the due date), else the instant; null for none, or a reminder relative to a due
 * date the task does not have.
 */
function reminderInput(fields: TodoFields, timeZone: string): string | null {
  const reminder = fields.reminder;
  if (!reminder) return null;
  if ('at' in reminder) return reminder.at.toISOString();
  if (!fields.due) return null;
  const minutes = reminder.beforeDueMinutes;
  if (minutes === 0) return 'at due';
  const [unit, size] = UNITS.find(([, size]) => minutes % size === 0) ?? ['minute', 1];
  // The words stop at 9999 of a unit: a reminder further ahead is its instant.
  if (minutes / size > 9999) return new Date(dueInstant(fields.due, timeZone).getTime() - minutes * 60_000).toISOString();
  return `${minutes / size} ${unit}s before`;
}
