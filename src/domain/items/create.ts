import type { Knex } from 'knex';
import type { OperationContext, OpInput, OpOutput, Principal } from '../../core/context.js';
import { keepsDueDate, keepsStatus, propertyDto, resolveList, type ListRow } from '../lists/lists.js';
import { findProperty, propertyNames } from '../lists/properties.js';
import { isEmptyValue, resolveValues, ValueError, withNewOptions, type StoredValues } from '../lists/values.js';
import { itemRowDto, readDueAt, statusColumns, TASK_STATUSES, type ItemDbRow, type TaskStatus } from './items.js';
import { firstDue, parseRecurrence } from './recurrence.js';
import { labelSpellings, normalizeLabels } from './labels.js';
import { readReminder } from './reminders.js';
import { checkParent } from './subtasks.js';
import { recordActivity } from '../changes/activity.js';
import { linkRoots } from './urls.js';
import { ApiError, notFound } from '../../core/errors.js';
import { attachImages, type Downloads, type ImageRequest } from '../media/images.js';
import { enqueueEnrich } from './enrich.js';
import { inReach } from '../reach.js';

type Output = OpOutput<'create_items'>;
type Entry = OpInput<'create_items'>['items'][number];

const KNOWN_KEYS = new Set([
  'title',
  'body',
  'values',
  'taskStatus',
  'dueAt',
  'recurrence',
  'reminderAt',
  'labels',
  'parentId',
  'externalId',
  'imageUrls',
  'enrich',
]);

interface Prepared {
  index: number;
  insert: Record<string, unknown>;
  values: StoredValues;
  body: string | null;
  imageUrls: string[];
  enrich: boolean;
  externalId: string | null;
}

/**
 * Creates 1 to 100 entries on one list in the caller's transaction, with one multi-row INSERT.
 * A bad entry is reported under `failed` and the rest still land; the same `externalId`
 * returns the item already made; `matchOn` merges into an existing item without overwriting
 * anything. Images already downloaded are attached; the paths attached are added to `attached`.
 * @see openapi/openapi.yaml create_items
 */
export async function createItems(
  ctx: OperationContext,
  trx: Knex.Transaction,
  input: OpInput<'create_items'>,
  context: { timeZone: string; now: Date; downloads: Downloads; attached: Set<string> },
): Promise<Output> {
  const { principal, config } = ctx;
  const { now, downloads, attached } = context;
  const list = await lockList(trx, principal.userId, input.listId ?? 'tasks');
  const matchOn = resolveMatchOn(list, input.matchOn ?? []);
  const failed: Output['failed'] = [];
  const unknownKeys = new Set<string>();
  let properties = list.properties;
  const prepared: Prepared[] = [];

  // Labels take the spelling the person already uses: one read for the call, when any entry has labels.
  const spellings = input.items.some((e) => e.labels?.length) ? await labelSpellings(trx, principal.userId) : new Map<string, string>();
  const badParents = await badParentsOf(trx, principal.userId, list.id, input.items);
  input.items.forEach((entry, index) => {
    for (const key of Object.keys(entry)) if (!KNOWN_KEYS.has(key)) unknownKeys.add(key);
    const badParent = badParents.get(index);
    if (badParent) {
      failed.push({ index, reason: badParent, externalId: entry.externalId ?? null });
      return;
    }
    try {
      const { item, newProperties } = prepareEntry(entry, index, { ...list, properties }, context.timeZone, now, input.enrich === true, spellings);
      properties = newProperties;
      prepared.push(item);
    } catch (err) {
      if (!(err instanceof ValueError)) throw err;
      failed.push({ index, reason: err.message, externalId: entry.externalId ?? null });
    }
  });

  // The same externalId again returns the item already made, also within one batch.
  const existingRows = await findByExternalIds(
    trx,
    principal.userId,
    prepared.map((p) => p.externalId).filter((x): x is string => x !== null),
  );
  dropUnreachable(prepared, existingRows, failed);
  const matchTargets = matchOn.length ? await findMatches(trx, list.id, matchOn, prepared) : new Map<number, ItemDbRow>();
  const { existing, toInsert, merges } = sortEntries(prepared, existingRows, matchTargets);

  if (properties !== list.properties) {
    await trx('lists')
      .where({ id: list.id })
      .update({ properties: JSON.stringify(properties), updated_at: now });
  }
  const inserted = toInsert.length
    ? ((await trx('items')
        .insert(
          toInsert.map((p) => ({
            ...p.insert,
            owner_id: principal.userId,
            list_id: list.id,
            values: JSON.stringify(p.values),
            created_at: now,
            updated_at: now,
            edited_at: now,
          })),
        )
        .returning('*')) as ItemDbRow[])
    : [];
  const merged = await Promise.all(merges.map(({ target, entry }) => mergeInto(trx, target, entry, now)));

  const images: ImageRequest[] = [
    ...toInsert.map((p, i) => ({ index: p.index, itemId: inserted[i]!.id, urls: p.imageUrls })),
    ...merges.map(({ target, entry }) => ({ index: entry.index, itemId: target.id, urls: entry.imageUrls })),
  ];
  const imageResult = await attachImages(ctx, trx, images, downloads);
  for (const bucketPath of imageResult.downloadedPaths) attached.add(bucketPath);
  const enrichIds = toInsert.flatMap((p, i) => (p.enrich ? [inserted[i]!.id] : []));
  if (enrichIds.length && keepsStatus(list)) await enqueueEnrich(ctx, trx, enrichIds);
  await record(trx, principal, list, inserted.length, merged.length);

  const byIndex = new Map<number, ItemDbRow>();
  toInsert.forEach((p, i) => byIndex.set(p.index, inserted[i]!));
  merges.forEach(({ entry }, i) => byIndex.set(entry.index, merged[i]!));
  const listed = { ...list, properties };
  return {
    listId: list.id,
    listName: list.name,
    listIcon: list.icon,
    properties: properties.map((p) => propertyDto(p)),
    items: [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, row]) => itemRowDto(row, listed)),
    added: inserted.length,
    links: linkRoots(config),
    mergedIds: merged.map((m) => m.id),
    existing: existing.map((row) => itemRowDto(row, listed)),
    failed,
    unknownKeys: [...unknownKeys],
    imagesAttached: imageResult.attached,
    imageFailures: imageResult.failures,
  };
}

/**
 * The entries whose parent cannot take them, by index, with the reason: a parent must be a live
 * top-level item of the same list. Each parent is read once, however many entries name it.
 */
async function badParentsOf(trx: Knex, userId: string, listId: string, items: OpInput<'create_items'>['items']): Promise<Map<number, string>> {
  const parentChecks = new Map<string, string | null>();
  for (const parentId of new Set(items.flatMap((e) => (e.parentId ? [e.parentId] : [])))) {
    try {
      await checkParent(trx, userId, parentId, listId, null);
      parentChecks.set(parentId, null);
    } catch (err) {
      if (!(err instanceof ValueError)) throw err;
      parentChecks.set(parentId, err.message);
    }
  }
  const badParents = new Map<number, string>();
  items.forEach((entry, index) => {
    const reason = entry.parentId ? parentChecks.get(entry.parentId) : null;
    if (reason) badParents.set(index, reason);
  });
  return badParents;
}

/**
 * Where each prepared entry goes: the item its externalId already made (also earlier in this
 * batch: then it is skipped), the item its matchOn values name (a merge), or a new row.
 */
function sortEntries(
  prepared: Prepared[],
  existingRows: Map<string, ItemDbRow>,
  matchTargets: Map<number, ItemDbRow>,
): { existing: ItemDbRow[]; toInsert: Prepared[]; merges: { target: ItemDbRow; entry: Prepared }[] } {
  const existing: ItemDbRow[] = [];
  const seenExternal = new Set<string>();
  const toInsert: Prepared[] = [];
  const merges: { target: ItemDbRow; entry: Prepared }[] = [];
  for (const entry of prepared) {
    if (entry.externalId !== null) {
      const found = existingRows.get(entry.externalId);
      if (found) {
        existing.push(found);
        continue;
      }
      if (seenExternal.has(entry.externalId)) continue;
      seenExternal.add(entry.externalId);
    }
    const target = matchTargets.get(entry.index);
    if (target) merges.push({ target, entry });
    else toInsert.push(entry);
  }
  return { existing, toInsert, merges };
}

/** The target list, locked so concurrent batches adding options to it do not lose each other's. */
async function lockList(trx: Knex, ownerId: string, listId: string): Promise<ListRow> {
  const list = await resolveList(trx, ownerId, listId);
  // Postgres checks deleted_at again on the row as a concurrent delete_list left it.
  const locked = (await trx('lists').where({ id: list.id }).whereNull('deleted_at').forUpdate().first()) as ListRow | undefined;
  if (!locked) throw notFound(`list ${list.id} was deleted while these items were being added; restore it from the trash or pick another list.`);
  return locked;
}

function resolveMatchOn(list: ListRow, keys: string[]): string[] {
  return keys.map((key) => {
    if (key.toLowerCase() === 'title') return 'title';
    const property = findProperty(list.properties, key);
    if (!property)
      throw new ApiError('toolError', `matchOn names unknown property '${key}'; valid: title, ${propertyNames(list.properties)}.`, { field: 'matchOn' });
    return property.id;
  });
}

/** Validates and normalises one entry; throws ValueError with the reason it fails. */
function prepareEntry(
  entry: Entry,
  index: number,
  list: ListRow,
  timeZone: string,
  now: Date,
  enrichAll: boolean,
  spellings: Map<string, string>,
): { item: Prepared; newProperties: ListRow['properties'] } {
  const resolved = resolveValues(list.properties, entry.values);
  const taskStatus = entry.taskStatus ?? resolved.taskStatus ?? null;
  const dueText = entry.dueAt ?? resolved.dueAt ?? null;
  const insert: Record<string, unknown> = { title: entry.title ?? null, body: entry.body ?? null, external_id: entry.externalId ?? null };
  if (taskStatus !== null) {
    if (!keepsStatus(list)) throw new ValueError(`taskStatus: list '${list.name}' keeps no status; leave it out or use a list with task columns.`);
    if (!TASK_STATUSES.includes(taskStatus as TaskStatus))
      throw new ValueError(`taskStatus must be one of ${TASK_STATUSES.join(', ')}; received '${taskStatus}'.`);
    Object.assign(insert, statusColumns(null, taskStatus as TaskStatus, now));
  } else if (keepsStatus(list)) {
    insert.task_status = 'todo';
  }
  if (dueText !== null) {
    if (!keepsDueDate(list)) throw new ValueError(`dueAt: list '${list.name}' keeps no due date; leave it out or use a list with task columns.`);
    const due = readDueAt(dueText, timeZone, now);
    if (!due)
      throw new ValueError(
        `dueAt '${dueText}' is not an ISO 8601 date or date-time such as 2026-12-01 or 2026-12-01T09:00:00Z, nor a date in words such as 'tomorrow 5pm'.`,
      );
    insert.due_at = due.dueAt;
    insert.has_due_time = due.hasDueTime;
  }
  if (entry.labels?.length) insert.labels = normalizeLabels(entry.labels, spellings);
  if (entry.parentId) insert.parent_id = entry.parentId;
  if (entry.recurrence !== undefined && entry.recurrence !== null && entry.recurrence.trim() !== '') {
    if (!keepsDueDate(list))
      throw new ValueError(`recurrence: list '${list.name}' keeps no due date, so nothing there can repeat; use a list with task columns.`);
    const { rule } = parseRecurrence(entry.recurrence);
    insert.recurrence = rule;
    // A repeating task without a due date starts at the rule's first occurrence from now.
    if (insert.due_at === undefined) {
      const first = firstDue(rule, null, now, timeZone);
      if (first) Object.assign(insert, { due_at: first.at, has_due_time: first.hasTime });
    }
  }
  if (entry.reminderAt !== undefined && entry.reminderAt !== null && entry.reminderAt.trim() !== '') {
    if (!keepsDueDate(list))
      throw new ValueError(`reminderAt: list '${list.name}' keeps no due date, so nothing there takes a reminder; use a list with task columns.`);
    Object.assign(insert, readReminder(entry.reminderAt, (insert.due_at as Date | undefined) ?? null, timeZone, now));
  }
  const values: StoredValues = {};
  for (const [id, value] of Object.entries(resolved.set)) if (value !== null) values[id] = value;
  return {
    item: {
      index,
      insert,
      values,
      body: entry.body ?? null,
      imageUrls: entry.imageUrls ?? [],
      enrich: entry.enrich ?? enrichAll,
      externalId: entry.externalId ?? null,
    },
    newProperties: withNewOptions(list.properties, resolved.newOptions),
  };
}

/**
 * An externalId already held by an item on a list the connection does not reach (a grant of
 * chosen lists) neither shows that item nor can be taken again (one per person): the entry fails.
 */
function dropUnreachable(prepared: Prepared[], existingRows: Map<string, ItemDbRow>, failed: Output['failed']): void {
  for (let i = prepared.length - 1; i >= 0; i -= 1) {
    const { externalId, index } = prepared[i]!;
    const found = externalId === null ? undefined : existingRows.get(externalId);
    if (!found || inReach(found.list_id)) continue;
    existingRows.delete(externalId!);
    prepared.splice(i, 1);
    failed.push({ index, reason: `externalId '${externalId}' is already used by an item this connection cannot reach.`, externalId });
  }
  failed.sort((a, b) => a.index - b.index);
}

async function findByExternalIds(trx: Knex, ownerId: string, externalIds: string[]): Promise<Map<string, ItemDbRow>> {
  if (externalIds.length === 0) return new Map();
  const rows = (await trx('items')
    .where({ owner_id: ownerId })
    .whereIn('external_id', [...new Set(externalIds)])) as ItemDbRow[];
  return new Map(rows.map((r) => [r.external_id!, r]));
}

/** For each entry that names every matchOn value, the live item on the list whose values match exactly. */
async function findMatches(trx: Knex, listId: string, keys: string[], entries: Prepared[]): Promise<Map<number, ItemDbRow>> {
  const wanted = entries
    .map((entry) => {
      const values: Record<string, unknown> = {};
      let title: string | null = null;
      for (const key of keys) {
        if (key === 'title') title = (entry.insert.title as string | null) ?? null;
        else values[key] = entry.values[key];
      }
      const complete = keys.every((k) => (k === 'title' ? title !== null : !isEmptyValue(values[k])));
      return complete ? { entry, values, title } : null;
    })
    .filter((w): w is { entry: Prepared; values: Record<string, unknown>; title: string | null } => w !== null);
  if (wanted.length === 0) return new Map();
  const candidates = (await trx('items')
    .where({ list_id: listId })
    .whereNull('deleted_at')
    .where((q) => {
      for (const w of wanted) {
        q.orWhere((c) => {
          c.whereRaw('"values" @> ?::jsonb', [JSON.stringify(w.values)]);
          if (w.title !== null) c.where('title', w.title);
        });
      }
    })
    .orderBy('created_at')) as ItemDbRow[];
  const out = new Map<number, ItemDbRow>();
  for (const w of wanted) {
    const hit = candidates.find(
      (c) => (w.title === null || c.title === w.title) && Object.entries(w.values).every(([k, v]) => JSON.stringify(c.values[k]) === JSON.stringify(v)),
    );
    if (hit) out.set(w.entry.index, hit);
  }
  return out;
}

/** Fills the item's empty values and empty body from the entry; overwrites nothing. */
async function mergeInto(trx: Knex, target: ItemDbRow, entry: Prepared, now: Date): Promise<ItemDbRow> {
  const values = { ...target.values };
  for (const [k, v] of Object.entries(entry.values)) if (isEmptyValue(values[k])) values[k] = v;
  const patch: Record<string, unknown> = { values: JSON.stringify(values), updated_at: now, edited_at: now };
  if ((target.body ?? '').trim() === '' && entry.body) patch.body = entry.body;
  const [row] = (await trx('items').where({ id: target.id }).update(patch).returning('*')) as ItemDbRow[];
  return row!;
}

async function record(trx: Knex, principal: Principal, list: ListRow, added: number, merged: number): Promise<void> {
  if (added + merged === 0) return;
  const parts = [added ? `added ${added}` : '', merged ? `merged ${merged}` : ''].filter(Boolean).join(', ');
  await recordActivity(trx, principal, { action: 'items.created', summary: `${parts} on '${list.name}'`, listId: list.id });
}
