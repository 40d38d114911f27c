/**
 * update_items in the domain: the call-wide settings, then each entry in one transaction with
 * its lists and items locked, what it changes (update-patch.ts) written, logged and announced;
 * a refusal stops the batch and names what was written before it.
 * @see openapi/openapi.yaml update_items
 */
import type { Knex } from 'knex';
import type { OpOutput, OperationContext } from '../../core/context.js';
import type { ListRow } from '../lists/lists.js';
import { itemRowDto, listsById, loadAccessible, readDueAt, type AccessibleItem, type ItemDbRow } from './items.js';
import { ValueError } from '../lists/values.js';
import type { LegacyMode } from '../body/legacy-mode.js';
import { bodyVersion } from '../body/index.js';
import { recordActivity } from '../changes/activity.js';
import { attachImages, clearImages, type Downloads } from '../media/images.js';
import { ApiError, invalid, toolError } from '../../core/errors.js';
import { askingConfirmation } from '../../core/confirmation.js';
import { emitAwaitingAgent } from '../changes/events.js';
import { prepareBody } from '../body/outlines.js';
import { labelSpellings, normalizeLabels } from './labels.js';
import {
  assignment,
  changeBody,
  duePatch,
  parentOf,
  Refusal,
  refuseOwnerFields,
  reminderPatch,
  repeatPatch,
  statusPatch,
  valuesPatch,
  type Due,
  type Entry,
  type Input,
  type UpdateArgs,
} from './update-patch.js';

export { Refusal } from './update-patch.js';

type ResultItem = OpOutput<'update_items'>['items'][number];

export interface UpdateSettings {
  mode: LegacyMode;
  /** The call-wide due date: undefined to leave, null to clear. */
  due: Due | null | undefined;
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

  const set = valuesPatch(row, list, entry, patch);
  const properties = set?.properties ?? list.properties;
  const taskStatus = set?.taskStatus ?? input.taskStatus ?? undefined;
  const dueChange = set && set.dueChange !== undefined ? set.dueChange : args.due;
  if (set) edited = true;
  if (taskStatus !== undefined) await statusPatch(trx, row, list, taskStatus, now, patch);
  if (dueChange !== undefined) duePatch(list, dueChange, patch);
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
  if (entry.parentId !== undefined && entry.parentId !== null) patch.parent_id = await parentOf(trx, row, entry.parentId);
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

async function setRecipientFavorite(trx: Knex, userId: string, itemId: string, on: boolean): Promise<boolean> {
  if (on) await trx('recipient_favorites').insert({ user_id: userId, item_id: itemId }).onConflict(['user_id', 'item_id']).ignore();
  else await trx('recipient_favorites').where({ user_id: userId, item_id: itemId }).delete();
  return on;
}
