import type { Knex } from 'knex';
import type { OpInput, OpOutput, OperationContext } from '../../core/context.js';
import { keepsDueDate, keepsStatus, type ListRow } from '../lists/lists.js';
import {
  itemRowDto,
  listsById,
  loadAccessible,
  parseDueAt,
  readDueAt,
  statusColumns,
  TASK_STATUSES,
  type AccessibleItem,
  type ItemDbRow,
  type TaskStatus,
} from './items.js';
import { resolveValues, ValueError, withNewOptions } from '../lists/values.js';
import { mergeBody, type LegacyMode } from '../body/legacy-mode.js';
import { applyEdits, bodyVersion, parseEdit, type BodyEdit } from '../body/index.js';
import { recordActivity } from '../changes/activity.js';
import { attachImages, clearImages, type Downloads } from '../media/images.js';
import { ApiError, invalid, toolError } from '../../core/errors.js';
import { askingConfirmation } from '../../core/confirmation.js';
import { emitAwaitingAgent } from '../changes/events.js';
import { prepareBody } from '../body/outlines.js';
import { clearedDueRefusal, firstDue, nextOccurrence, parseRecurrence } from './recurrence.js';
import { labelSpellings, normalizeLabels } from './labels.js';
import { followDue, readReminder } from './reminders.js';
import { checkParent, openSubtasks, ParentNotFound } from './subtasks.js';

type Input = OpInput<'update_items'>;
type Entry = Input['items'][number];
type ResultItem = OpOutput<'update_items'>['items'][number];

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

export interface UpdateSettings {
  mode: LegacyMode;
  /** The call-wide due date: undefined to leave, null to clear. */
  due: { dueAt: Date; hasDueTime: boolean } | null | undefined;
  /** The person's time zone: due dates in words and the occurrences of repeating tasks are read in it. */
  timeZone: string;
}

/** Checks the call-wide options of update_items before anything is read; throws the refusal. */
export function updateSettings(input: Input, timeZone: string, now: Date): UpdateSettings {
  const mode = (input.mode ?? 'append') as LegacyMode;
  if (mode === 'replace' && input.confirmReplace !== true) {
    const count = input.items.length;
    throw askingConfirmation(
      toolError('mode replace overwrites whole bodies: send confirmReplace: true to do it, or use block edits (get_item with forEditing, then edits).'),
      {
        field: 'confirmReplace',
        question: `Replace the whole text of ${count === 1 ? 'this item' : `these ${count} items`} with new text? What is written there now is overwritten.`,
      },
    );
  }
  if (mode === 'insertAfter' && !input.anchor) throw invalid('mode insertAfter needs an anchor: a verbatim snippet of the line to insert after.', 'anchor');
  const due =
    input.dueAt === undefined || input.dueAt === null ? undefined : input.dueAt.trim().toLowerCase() === 'none' ? null : readDueAt(input.dueAt, timeZone, now);
  // Any text passes the schema (words are read too): one that reads as no date is refused on its merits (409).
  if (due === null && input.dueAt!.trim().toLowerCase() !== 'none')
    throw new ApiError('toolError', `dueAt '${input.dueAt}' is not an ISO 8601 date or date-time, nor 'none', nor a date in words such as 'next Friday 9am'.`, {
      field: 'dueAt',
    });
  return { mode, due, timeZone };
}

export interface UpdateOutcome {
  written: ResultItem[];
  imagesAttached: number;
  imageFailures: OpOutput<'update_items'>['imageFailures'];
  refusal: { error: Refusal; entry: Entry; index: number } | null;
}

/**
 * Writes the entries of update_items in order, in the caller's transaction: a refusal stops
 * the batch (the items before it stay written). Images already downloaded are attached; the
 * paths attached are added to `attached`.
 * @see openapi/openapi.yaml update_items
 */
export async function updateItems(
  ctx: OperationContext,
  trx: Knex.Transaction,
  input: Input,
  settings: UpdateSettings & { now: Date; downloads: Downloads; attached: Set<string> },
): Promise<UpdateOutcome> {
  const { principal } = ctx;
  const { mode, due, now, downloads, attached, timeZone } = settings;
  const ids = input.items.map((e) => e.itemId);
  const outcome: UpdateOutcome = { written: [], imagesAttached: 0, imageFailures: [], refusal: null };
  const { accessible, lists } = await lockTargets(
    trx,
    principal.userId,
    ids,
    input.items.some((e) => e.values !== undefined && e.values !== null) || (input.archived !== undefined && input.archived !== null),
  );
  for (const entry of input.items) {
    const found = accessible.get(entry.itemId);
    if (found && entry.edits?.length) await prepareBody(trx, found.row.id, found.row.body ?? '', { store: false });
  }
  const spellings = input.items.some((e) => e.labels) ? await labelSpellings(trx, principal.userId) : new Map<string, string>();
  for (const [index, entry] of input.items.entries()) {
    try {
      const result = await updateOne(ctx, trx, { entry, index, item: accessible.get(entry.itemId), lists, input, mode, due, now, timeZone, spellings });
      outcome.written.push(result.item);
      if (entry.clearImages) await clearImages(trx, entry.itemId);
      const images = await attachImages(ctx, trx, entry.imageUrls?.length ? [{ index, itemId: entry.itemId, urls: entry.imageUrls }] : [], downloads);
      outcome.imagesAttached += images.attached;
      outcome.imageFailures.push(...images.failures);
      for (const bucketPath of images.downloadedPaths) attached.add(bucketPath);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      outcome.refusal = { error: err, entry, index };
      break;
    }
  }
  const { written } = outcome;
  if (written.length)
    await recordActivity(trx, principal, {
      action: 'items.updated',
      summary: `Updated ${written.length} item${written.length > 1 ? 's' : ''}: ${written
        .slice(0, 5)
        .map((i) => i.title ?? '(untitled)')
        .join(', ')}`,
    });
  return outcome;
}

/** The error of a batch stopped by a refusal: what was refused, why, and what was written before it. */
export function refusalError(refusal: NonNullable<UpdateOutcome['refusal']>, written: ResultItem[]): ApiError {
  const { error, entry, index } = refusal;
  const writtenIds = written.map((i) => i.id);
  const note = writtenIds.length
    ? ` ${writtenIds.length} item${writtenIds.length > 1 ? 's' : ''} before it ${writtenIds.length > 1 ? 'were' : 'was'} written (details.writtenItemIds); the rest were not.`
    : ' Nothing was written.';
  return new ApiError(error.code, `items[${index}] (${entry.itemId}): ${error.message}${note}`, {
    details: { writtenItemIds: writtenIds, refusedItemId: entry.itemId, refusedIndex: index, ...error.extra },
  });
}

/**
 * The items of the call and their lists, read and locked in this transaction: lists first (as
 * update_list and create_items lock them), then items, each in id order. Edits, handles and
 * versions are then checked against the body as it is, so two concurrent calls never overwrite
 * each other's changes. Lists are locked for update only when an entry sets values (which may
 * add select options to them) or the call archives or unarchives (both change the list's
 * tallies, which writers change one at a time: migration 20261201000100).
 */
async function lockTargets(
  trx: Knex,
  userId: string,
  ids: string[],
  setsValues: boolean,
): Promise<{ accessible: Map<string, AccessibleItem>; lists: Map<string, ListRow> }> {
  const lock = setsValues ? 'update' : 'share';
  const seen = await loadAccessible(trx, userId, ids);
  const lists = await listsById(
    trx,
    [...seen.values()].map((a) => a.row.list_id),
    { lock },
  );
  const accessible = await loadAccessible(trx, userId, ids, { forUpdate: true });
  // An item moved to another list between the two reads: lock that list too (out of order, rare).
  const missing = [...accessible.values()].map((a) => a.row.list_id).filter((id) => !lists.has(id));
  for (const [id, list] of await listsById(trx, missing, { lock })) lists.set(id, list);
  return { accessible, lists };
}

interface UpdateArgs {
  entry: Entry;
  index: number;
  item: AccessibleItem | undefined;
  lists: Map<string, ListRow>;
  input: Input;
  mode: LegacyMode;
  due: { dueAt: Date; hasDueTime: boolean } | null | undefined;
  now: Date;
  timeZone: string;
  spellings: Map<string, string>;
}

async function updateOne(ctx: OperationContext, trx: Knex, args: UpdateArgs): Promise<{ item: ResultItem }> {
  const { entry, item, input, now } = args;
  if (!item) throw new Refusal('notFound', 'no such item in your workspace (or it is in the trash).');
  const { row, access } = item;
  const list = args.lists.get(row.list_id)!;
  refuseOwnerFields(entry, input, access);

  const patch: Record<string, unknown> = {};
  let edited = false;
  if (entry.title !== undefined && entry.title !== null) {
    patch.title = entry.title;
    edited = true;
  }
  let bodyResult: { bodyVersion: string; applied: string[] } | null = null;
  const body = changeBody(row, entry, args.mode, input.anchor ?? null);
  if (body) {
    patch.body = body.body;
    bodyResult = { bodyVersion: bodyVersion(body.body), applied: body.applied };
    edited = true;
  }

  let properties = list.properties;
  let taskStatus = input.taskStatus ?? undefined;
  let dueChange = args.due;
  if (entry.values !== undefined && entry.values !== null) {
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
    properties = withNewOptions(list.properties, resolved.newOptions);
    if (resolved.taskStatus !== undefined && resolved.taskStatus !== null) taskStatus = resolved.taskStatus as TaskStatus;
    if (resolved.dueAt !== undefined) {
      if (resolved.dueAt === null) dueChange = null;
      else {
        const parsed = parseDueAt(resolved.dueAt, 'UTC');
        if (!parsed) throw new Refusal('toolError', `'${resolved.dueAt}' is not an ISO 8601 date for the due date.`);
        dueChange = parsed;
      }
    }
    edited = true;
  }
  if (taskStatus !== undefined) {
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
  if (dueChange !== undefined) {
    if (!keepsDueDate(list)) throw new Refusal('toolError', `list '${list.name}' keeps no due date, so dueAt cannot be set on this item.`);
    Object.assign(
      patch,
      dueChange === null ? { due_at: null, has_due_time: null, reminder_at: null } : { due_at: dueChange.dueAt, has_due_time: dueChange.hasDueTime },
    );
  }
  if (entry.labels !== undefined && entry.labels !== null) {
    try {
      patch.labels = normalizeLabels(entry.labels, args.spellings);
    } catch (err) {
      if (err instanceof ValueError) throw new Refusal('toolError', err.message);
      throw err;
    }
  }
  const repeat = repeatPatch(row, list, entry, patch, args);
  if (repeat) {
    Object.assign(patch, repeat.patch);
    if (repeat.completed)
      await recordActivity(trx, ctx.principal, {
        action: 'item.completed',
        summary: `Completed '${row.title ?? '(untitled)'}' (${repeat.completed}); it repeats, next due ${(patch.due_at as Date).toISOString()}`,
        itemId: row.id,
        listId: row.list_id,
      });
  }
  reminderPatch(row, list, entry, patch, args);
  if (entry.parentId !== undefined && entry.parentId !== null) {
    if (entry.parentId.trim() === '') patch.parent_id = null;
    else {
      try {
        await checkParent(trx, row.owner_id, entry.parentId, row.list_id, { id: row.id });
      } catch (err) {
        if (err instanceof ValueError) throw new Refusal(err instanceof ParentNotFound ? 'notFound' : 'toolError', err.message);
        throw err;
      }
      patch.parent_id = entry.parentId;
    }
  }
  const assigned = assignment(row, list, entry);
  if (assigned !== undefined) patch.assigned_agent = assigned;
  if (input.archived !== undefined && input.archived !== null) patch.archived_at = input.archived ? (row.archived_at ?? now) : null;
  let favorited = row.favorited;
  if (input.favorited !== undefined && input.favorited !== null) {
    if (access === 'own') patch.favorited = input.favorited;
    else favorited = await setRecipientFavorite(trx, ctx.principal.userId, row.id, input.favorited);
  }
  if (properties !== list.properties) {
    await trx('lists')
      .where({ id: list.id })
      .update({ properties: JSON.stringify(properties) });
    args.lists.set(list.id, { ...list, properties });
  }
  let updated = row;
  if (Object.keys(patch).length > 0) {
    const rows = (await trx('items')
      .where({ id: row.id })
      .update({ ...patch, updated_at: now, ...(edited ? { edited_at: now } : {}) })
      .returning('*')) as ItemDbRow[];
    updated = rows[0]!;
  }
  // Handing a task to an agent releases task.awaitingAgent, in this transaction (outbox).
  if (assigned && updated.task_status !== 'completed') await emitAwaitingAgent(trx, updated, 'assigned', assigned, now);
  const dto = itemRowDto(updated, { properties }, { isSharedWithMe: access !== 'own', favorited: access === 'own' ? updated.favorited : favorited });
  return { item: bodyResult ? { ...dto, ...bodyResult } : dto };
}

/**
 * What the entry's `recurrence` and a completion do to a repeating task: a new rule (with a
 * first due date when the task has none), no rule (`""`), or, when the task is completed,
 * its next occurrence instead: reopened, due then, the completion counted. `completed` names
 * the occurrence completed, for the activity log.
 */
function repeatPatch(
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
function reminderPatch(row: ItemDbRow, list: ListRow, entry: Entry, patch: Record<string, unknown>, args: UpdateArgs): void {
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
function assignment(row: ItemDbRow, list: ListRow, entry: Entry): string | null | undefined {
  if (entry.assignedAgent === undefined || entry.assignedAgent === null) return undefined;
  if (!keepsStatus(list))
    throw new Refusal('toolError', `assignedAgent is for tasks, and list '${list.name}' keeps no status; move the item to a tasks list first.`);
  const name = entry.assignedAgent.trim() || null;
  return name === row.assigned_agent ? undefined : name;
}

function refuseOwnerFields(entry: Entry, input: Input, access: AccessibleItem['access']): void {
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
function changeBody(row: ItemDbRow, entry: Entry, mode: LegacyMode, anchor: string | null): { body: string; applied: string[] } | null {
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

async function setRecipientFavorite(trx: Knex, userId: string, itemId: string, on: boolean): Promise<boolean> {
  if (on) await trx('recipient_favorites').insert({ user_id: userId, item_id: itemId }).onConflict(['user_id', 'item_id']).ignore();
  else await trx('recipient_favorites').where({ user_id: userId, item_id: itemId }).delete();
  return on;
}
