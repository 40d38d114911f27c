/**
 * The import job: claims an import, writes each of its lists in a transaction of its own (a
 * list lands whole or not at all, and its outcome is recorded in that same transaction, so a
 * job that runs again after a crash skips what already landed), reports progress from outside
 * the list's transaction as it goes, then records how the import ended and drops its plan.
 * @see src/domain/transfer/imports.ts
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../../core/config.js';
import type { components } from '../../generated/api.js';
import { ApiError, notFound } from '../../core/errors.js';
import { timeZoneOf } from '../accounts/accounts.js';
import { recordActivity } from '../changes/activity.js';
import { attachImages, discardUnattached, type Downloads, type ImageContext } from '../media/images.js';
import { MAX_WARNINGS, type ImportFormat, type ImportPlan, type PlanItem, type PlanList } from './import-plan.js';
import { fetchAttachments } from './import-attachments.js';
import { writeChats } from './import-chats.js';
import { itemColumns, linkSubtasks, matchProperties } from './import-columns.js';
import { isUuid } from '../ids.js';
import type { ItemDbRow } from '../items/items.js';
import { keepsDueDate, keepsStatus, type ListRow } from '../lists/lists.js';
import { taskColumns, type Property } from '../lists/properties.js';
import { labelSpellings } from '../items/labels.js';
import { ValueError, type StoredValues } from '../lists/values.js';

export type Outcome = components['schemas']['ImportListOutcome'];
type ImportStatus = components['schemas']['Import']['status'];

/** Items written per statement; progress is reported after each. */
const CHUNK = 250;
/** An import still `running` this long after it started was cut off (the process stopped): the job's expiry (jobs/definitions.ts). */
const STALE_MS = 60 * 60 * 1000;

export interface ImportRow {
  id: string;
  owner_id: string;
  format: ImportFormat;
  status: ImportStatus;
  plan: ImportPlan | null;
  total: number;
  done: number;
  lists: Outcome[];
  warnings: string[];
  client_name: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** The list a plan list would write into, if it exists now (locked, for the job). */
export async function existingTarget(db: Knex, ownerId: string, list: PlanList, lock: boolean): Promise<ListRow | undefined> {
  const live = () => {
    const q = db('lists').where({ owner_id: ownerId }).whereNull('deleted_at');
    return lock ? q.forUpdate() : q;
  };
  switch (list.target.kind) {
    case 'hub':
      return (await live().where({ system_role: list.target.role }).first()) as ListRow | undefined;
    case 'sameName':
      return (await live().whereNull('system_role').whereRaw('lower(name) = lower(?)', [list.name]).orderBy('created_at').first()) as ListRow | undefined;
    case 'existing': {
      const found = (await live().where({ id: list.target.listId }).first()) as ListRow | undefined;
      if (!found) throw notFound(`The list ${list.target.listId} was deleted after the import started.`);
      return found;
    }
    case 'new':
      return undefined;
  }
}

export interface ImportDeps {
  db: Knex;
  config: Config;
  log: Logger;
  now(): Date;
}

/** A list that cannot be imported as it is; the sentence is the list's `error`. */
class ListRefused extends Error {}

/** The process is stopping: the list in hand was rolled back and the import queued again, for the job's retry. */
export class ImportInterrupted extends Error {}

/**
 * The import job: claims the import (a second delivery finds it claimed and stops; one left
 * `running` by a process that stopped is taken over after STALE_MS), writes each list still
 * pending in a transaction of its own, then records how it ended and drops the plan.
 */
export async function runImport(deps: ImportDeps, importId: string, signal?: AbortSignal): Promise<void> {
  const { db } = deps;
  const now = deps.now();
  const [row] = (await db('imports')
    .where({ id: importId })
    .where((q) => q.where({ status: 'queued' }).orWhere((s) => s.where({ status: 'running' }).where('started_at', '<', new Date(now.getTime() - STALE_MS))))
    .update({ status: 'running', started_at: now })
    .returning('*')) as ImportRow[];
  if (!row?.plan) return;
  const timeZone = await timeZoneOf(db, row.owner_id);
  const warnings = [...row.warnings];
  let done = row.lists.reduce((n, l, i) => n + (l.status === 'pending' ? 0 : (row.plan!.lists[i]?.items.length ?? 0)), 0);
  const outcomes = [...row.lists];
  for (const [index, list] of row.plan.lists.entries()) {
    if (outcomes[index]!.status !== 'pending') continue;
    if (signal?.aborted) await interrupt(db, row.id, done);
    const listWarnings: string[] = [];
    const ctx: ImageContext = { db, config: deps.config, log: deps.log, principal: { userId: row.owner_id } };
    let downloads: Downloads = new Map();
    const kept = new Set<string>();
    const progress = progressWriter(db, row.id);
    // Everything a list needs happens inside this try: whatever fails, fails that list (and the
    // import goes on), rather than the job, whose retry would find the import already claimed.
    try {
      downloads = await fetchAttachments(ctx, list, deps.config, listWarnings);
      const outcome = await db.transaction(async (trx) => {
        const result = await writeList(trx, ctx, row, list, { timeZone, now: deps.now(), downloads, kept, warnings: listWarnings }, (written) => {
          // Between two chunks: throwing rolls the list back whole.
          if (signal?.aborted) throw new ImportInterrupted();
          return progress.report(done + written);
        });
        outcomes[index] = result;
        await trx('imports')
          .where({ id: row.id })
          .update({ lists: JSON.stringify(outcomes), done: done + list.items.length, warnings: JSON.stringify(capped([...warnings, ...listWarnings])) });
        return result;
      });
      await progress.settled();
      done += list.items.length;
      warnings.push(...listWarnings);
      deps.log.info({ importId: row.id, list: outcome.listId, created: outcome.created, updated: outcome.updated }, 'imported a list');
    } catch (err) {
      kept.clear();
      // Before the count goes back to what landed (progress only ever raises it).
      await progress.settled();
      if (err instanceof ImportInterrupted) await interrupt(db, row.id, done);
      const known = err instanceof ListRefused || err instanceof ApiError || err instanceof ValueError;
      if (!known) deps.log.error({ err, importId: row.id, list: list.name }, 'an import list failed');
      outcomes[index] = {
        name: list.name,
        listId: null,
        status: 'failed',
        created: 0,
        updated: 0,
        error: known ? (err as Error).message : 'The list could not be written because of an error in the service (it is logged); nothing of it was written.',
      };
      await db('imports')
        .where({ id: row.id })
        .update({ lists: JSON.stringify(outcomes), done });
    } finally {
      await discardUnattached(ctx, downloads, kept);
    }
  }
  const imported = outcomes.filter((o) => o.status === 'imported').length;
  const status: ImportStatus = imported === outcomes.length ? 'succeeded' : imported === 0 && outcomes.length > 0 ? 'failed' : 'partial';
  await db('imports')
    .where({ id: row.id })
    .update({ status, plan: null, lists: JSON.stringify(outcomes), warnings: JSON.stringify(capped(warnings)), finished_at: deps.now() });
}

/**
 * Progress from outside a list's transaction, so readers see it while the list is written. The list's transaction
 * does not wait for it: holding its connection while waiting for a second one could wait forever on a pool that is
 * closing (a shutdown during an import: the close waited out knex's 60 s acquire timeout, and the list then failed
 * whole). The writes go one after another and only ever raise `done`, so one landing after the list's own (behind
 * its row lock) changes nothing; a failed one is left: the list's transaction records the count anyway.
 */
function progressWriter(db: Knex, importId: string): { report(done: number): Promise<void>; settled(): Promise<void> } {
  let last: Promise<void> = Promise.resolve();
  return {
    async report(done) {
      last = last
        .then(async () => {
          await db('imports')
            .where({ id: importId })
            .update({ done: db.raw('greatest(done, ?)', [done]) });
        })
        .catch(() => undefined);
    },
    settled: () => last,
  };
}

/** Queues the import again as it stands (the lists that landed keep their outcomes) and throws ImportInterrupted. */
async function interrupt(db: Knex, importId: string, done: number): Promise<never> {
  await db('imports').where({ id: importId, status: 'running' }).update({ status: 'queued', started_at: null, done });
  throw new ImportInterrupted(`The import ${importId} was stopped with its process; it is queued again and goes on where it stopped.`);
}

function capped(warnings: string[]): string[] {
  return warnings.length > MAX_WARNINGS
    ? [...warnings.slice(0, MAX_WARNINGS - 1), `…and ${warnings.length - MAX_WARNINGS + 1} more warnings like these.`]
    : warnings;
}

interface WriteContext {
  timeZone: string;
  now: Date;
  downloads: Downloads;
  kept: Set<string>;
  warnings: string[];
}

/** Writes one plan list in the caller's transaction; throws ListRefused (or an ApiError) to fail it whole. */
async function writeList(
  trx: Knex.Transaction,
  ctx: ImageContext,
  row: ImportRow,
  list: PlanList,
  w: WriteContext,
  progress: (written: number) => Promise<void>,
): Promise<Outcome> {
  const ownerId = row.owner_id;
  let target = await existingTarget(trx, ownerId, list, true);
  if (target && list.taskColumns && !(keepsStatus(target) && keepsDueDate(target)))
    throw new ListRefused(
      `'${target.name}' keeps no status and due date, and the imported list '${list.name}' has tasks; rename one of them and import again.`,
    );
  if (!target) target = await createTarget(trx, ownerId, list, w.now);

  const matched = matchProperties(target, list, w.warnings);
  let properties = matched.properties;
  const idOf = matched.idOf;
  const withStatus = keepsStatus({ properties });
  const withDue = keepsDueDate({ properties });

  let created = 0;
  let updated = 0;
  let droppedStatus = false;
  const spellings = list.items.some((i) => i.labels.length) ? await labelSpellings(trx, ownerId) : new Map<string, string>();
  /** The ids the list's items got, by their id in the file, to link subtasks at the end. */
  const written = new Map<string, string>();
  const seen = new Set<string>();
  for (let start = 0; start < list.items.length; start += CHUNK) {
    const chunk = list.items.slice(start, start + CHUNK);
    const matches = await findExisting(trx, ownerId, chunk);
    const inserts: { item: PlanItem; record: Record<string, unknown> }[] = [];
    const chats: { itemId: string; item: PlanItem; isNew: boolean }[] = [];
    for (const [i, item] of chunk.entries()) {
      const label = item.title ?? `row ${start + i + 1}`;
      if (item.externalId) {
        if (seen.has(item.externalId)) {
          w.warnings.push(`'${list.name}': '${label}' has the externalId '${item.externalId}' of an item before it; it was left out.`);
          continue;
        }
        seen.add(item.externalId);
      }
      const columns = itemColumns(item, label, { listName: list.name, properties, idOf, spellings, withStatus, withDue, w });
      properties = columns.properties;
      if (columns.droppedStatus) droppedStatus = true;
      const { values, record } = columns;
      const match = matches.get(item.externalId ?? '') ?? matches.get(`id:${sourceIdOf(item)}`);
      if (match) {
        if (match.list_id !== target.id || match.deleted_at) {
          w.warnings.push(
            `'${list.name}': '${label}' is already in your workspace (${match.deleted_at ? 'in the trash' : 'on another list'}, item ${match.id}); it was left as it is.`,
          );
          continue;
        }
        await trx('items')
          .where({ id: match.id })
          .update({ ...record, values: JSON.stringify({ ...match.values, ...values }), updated_at: w.now, edited_at: w.now });
        updated++;
        chats.push({ itemId: match.id, item, isNew: false });
        if (item.key) written.set(item.key, match.id);
      } else {
        inserts.push({ item, record: newRow(record, values, item, { ownerId, listId: target.id, now: w.now }) });
      }
    }
    if (inserts.length) {
      const rows = (await trx('items')
        .insert(inserts.map((x) => x.record))
        .returning('id')) as { id: string }[];
      rows.forEach((r, i) => {
        chats.push({ itemId: r.id, item: inserts[i]!.item, isNew: true });
        if (inserts[i]!.item.key) written.set(inserts[i]!.item.key!, r.id);
      });
      created += rows.length;
    }
    await writeChats(trx, ownerId, chats);
    await attachChunk(trx, ctx, list, chats, w);
    await progress(start + chunk.length);
  }
  await linkSubtasks(trx, list, written, w.warnings);
  if (droppedStatus) w.warnings.push(`'${target.name}' keeps no status or due date, so the statuses and due dates of '${list.name}' were left out.`);
  await trx('lists')
    .where({ id: target.id })
    .update({ properties: JSON.stringify(properties), updated_at: w.now });
  await recordActivity(
    trx,
    { userId: ownerId, via: 'apiKey', clientName: row.client_name, tokenId: '' },
    { action: 'list.imported', summary: `Imported ${created} new and ${updated} updated items into '${target.name}'`, listId: target.id },
  );
  return { name: list.name, listId: target.id, status: 'imported', created, updated, error: null };
}

/** A new item's row: its columns, owner, list, values and times (its own creation time, when the file has one). */
function newRow(
  record: Record<string, unknown>,
  values: StoredValues,
  item: PlanItem,
  at: { ownerId: string; listId: string; now: Date },
): Record<string, unknown> {
  return {
    ...record,
    owner_id: at.ownerId,
    list_id: at.listId,
    external_id: item.externalId,
    values: JSON.stringify(values),
    created_at: item.createdAt ? new Date(item.createdAt) : at.now,
    updated_at: at.now,
    edited_at: at.now,
  };
}

/** The attachments of a chunk's items that were downloaded, attached; the rest named in the warnings. */
async function attachChunk(
  trx: Knex.Transaction,
  ctx: ImageContext,
  list: PlanList,
  chats: { itemId: string; item: PlanItem }[],
  w: WriteContext,
): Promise<void> {
  const attached = await attachImages(
    ctx,
    trx,
    chats.map((c, i) => ({ index: i, itemId: c.itemId, urls: c.item.attachments.map((a) => a.url).filter((u) => w.downloads.has(u)) })),
    w.downloads,
  );
  for (const path of attached.downloadedPaths) w.kept.add(path);
  for (const f of attached.failures) w.warnings.push(`'${list.name}': an attachment was not brought over: ${f.reason}`);
}

/** A new list for a plan list: the hub list it stands for, or one of the person's own. */
async function createTarget(trx: Knex, ownerId: string, list: PlanList, now: Date): Promise<ListRow> {
  const properties: Property[] = [];
  if (list.taskColumns) {
    const [status, due] = taskColumns();
    const labels = list.taskColumns.statusLabels ?? {};
    properties.push(
      { ...status!, name: list.taskColumns.status, options: status!.options!.map((o) => ({ ...o, label: labels[o.id as keyof typeof labels] ?? o.label })) },
      { ...due!, name: list.taskColumns.dueDate },
    );
  }
  const layout = list.layout ?? (list.taskColumns || list.properties.length === 0 ? 'list' : 'table');
  const [row] = (await trx('lists')
    .insert({
      owner_id: ownerId,
      name: list.name,
      icon: list.icon,
      instructions: list.instructions,
      title_label: list.titleLabel,
      layout,
      system_role: list.target.kind === 'hub' ? list.target.role : null,
      properties: JSON.stringify(properties),
      created_at: now,
      updated_at: now,
    })
    .returning('*')) as ListRow[];
  return row!;
}

/** The id an export gave an item (kept as its externalId when it had none). */
function sourceIdOf(item: PlanItem): string | null {
  return item.externalId && isUuid(item.externalId) ? item.externalId : null;
}

/** Items of the person already there for a chunk: by externalId, and (an item exported from this workspace) by id. */
async function findExisting(trx: Knex, ownerId: string, chunk: PlanItem[]): Promise<Map<string, ItemDbRow>> {
  const externalIds = chunk.flatMap((i) => (i.externalId ? [i.externalId] : []));
  const ids = chunk.flatMap((i) => (sourceIdOf(i) ? [sourceIdOf(i)!] : []));
  const out = new Map<string, ItemDbRow>();
  if (externalIds.length) {
    for (const r of (await trx('items').where({ owner_id: ownerId }).whereIn('external_id', externalIds).forUpdate()) as ItemDbRow[])
      out.set(r.external_id!, r);
  }
  if (ids.length) {
    for (const r of (await trx('items').where({ owner_id: ownerId }).whereIn('id', ids).forUpdate()) as ItemDbRow[]) out.set(`id:${r.id}`, r);
  }
  return out;
}
