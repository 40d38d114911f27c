/**
 * Imports: starting one (its plan read from the input and checked, stored with a job queued in
 * the same transaction), showing what it would do (preview), and following it. The job that
 * writes it is import-run.ts; the readers of each format are import-document.ts,
 * import-csv.ts and import-todoist.ts over the plan of import-plan.ts.
 * @see openapi/openapi.yaml create_import, preview_import, get_import
 */
import type { Knex } from 'knex';
import type { Jobs } from '../../core/services.js';
import type { components } from '../../generated/api.js';
import { ApiError, notFound } from '../../core/errors.js';
import { refuse, type ExistingList, type ImportInput, type ImportPlan } from './import-plan.js';
import { planDocument } from './import-document.js';
import { planCsv } from './import-csv.js';
import { planTodoist } from './import-todoist.js';
import { existingTarget, type ImportRow, type Outcome } from './import-run.js';
import { matchProperty } from './import-columns.js';
import { isTimeZone, timeZoneOf } from '../accounts/accounts.js';
import { liveLists, resolveList } from '../lists/lists.js';

export const IMPORT_JOB = 'imports.run';
export type ImportDto = components['schemas']['Import'];
export type ImportPreviewDto = components['schemas']['ImportPreview'];

function dto(row: ImportRow): ImportDto {
  return {
    id: row.id,
    format: row.format,
    status: row.status,
    progress: { done: row.done, total: row.total },
    lists: row.lists,
    warnings: row.warnings,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

/** The plan of `input` for the person, with the list a CSV goes into resolved and a new list's name checked. */
async function prepare(db: Knex, ownerId: string, input: ImportInput, now: Date): Promise<ImportPlan> {
  const timeZone = await timeZoneOf(db, ownerId);
  let existing: ExistingList | undefined;
  if (input.format === 'csv' && input.listId !== undefined) {
    const list = await resolveList(db, ownerId, input.listId);
    existing = { id: list.id, name: list.name, titleLabel: list.title_label, properties: list.properties };
  }
  const plan = planImport(input, { timeZone, now, existing });
  for (const list of plan.lists) {
    if (list.target.kind !== 'new') continue;
    const taken = (await liveLists(db, ownerId)).find((l) => l.name.toLowerCase() === list.name.toLowerCase());
    if (taken)
      throw new ApiError(
        'toolError',
        `You have a list named '${taken.name}' already: give the new list another listName${input.format === 'csv' ? `, or add the rows to it with listId ${taken.id}` : ''}.`,
        { field: 'listName' },
      );
  }
  return plan;
}

/** preview_import: what the import would write, with nothing written. */
export async function previewImport(db: Knex, ownerId: string, input: ImportInput, now: Date): Promise<ImportPreviewDto> {
  const plan = await prepare(db, ownerId, input, now);
  const lists: ImportPreviewDto['lists'] = [];
  for (const list of plan.lists) {
    const target = await existingTarget(db, ownerId, list, false);
    const have = target?.properties ?? [];
    const newProperties = list.properties.filter((p) => !matchProperty(have, p)).map((p) => ({ name: p.name, type: p.type }));
    if (list.taskColumns && !target) newProperties.unshift({ name: list.taskColumns.status, type: 'status' }, { name: list.taskColumns.dueDate, type: 'date' });
    const names = new Map(list.properties.map((p) => [p.key, matchProperty(have, p)?.name ?? p.name]));
    lists.push({
      name: target?.name ?? list.name,
      listId: target?.id ?? null,
      items: list.items.length,
      newProperties,
      sample: list.items.slice(0, 10).map((item) => ({
        title: item.title,
        body: item.body,
        taskStatus: item.taskStatus,
        dueAt: item.due ? ('at' in item.due ? item.due.at : item.due.date) : null,
        values: Object.fromEntries(Object.entries(item.values).map(([key, value]) => [names.get(key) ?? key, value])),
      })),
    });
  }
  return { format: plan.format, total: plan.lists.reduce((n, l) => n + l.items.length, 0), lists, columns: plan.columns, warnings: plan.warnings };
}

/** create_import: stores the plan and queues its job, in one transaction. */
export async function startImport(
  db: Knex,
  jobs: Jobs | undefined,
  owner: { userId: string; clientName: string | null },
  input: ImportInput,
  now: Date,
): Promise<ImportDto> {
  const plan = await prepare(db, owner.userId, input, now);
  if (!jobs) throw new Error('create_import needs the job queue, and this process runs none');
  return db.transaction(async (trx) => {
    const [row] = (await trx('imports')
      .insert({
        owner_id: owner.userId,
        format: plan.format,
        plan: JSON.stringify(plan),
        total: plan.lists.reduce((n, l) => n + l.items.length, 0),
        lists: JSON.stringify(plan.lists.map((l): Outcome => ({ name: l.name, listId: null, status: 'pending', created: 0, updated: 0, error: null }))),
        warnings: JSON.stringify(plan.warnings),
        client_name: owner.clientName,
        created_at: now,
      })
      .returning('*')) as ImportRow[];
    await jobs.sendInTransaction(trx, IMPORT_JOB, { importId: row!.id }, { singletonKey: row!.id });
    return dto(row!);
  });
}

/** get_import: one import of the person's. */
export async function getImport(db: Knex, ownerId: string, id: string): Promise<ImportDto> {
  const row = (await db('imports').where({ id, owner_id: ownerId }).first()) as ImportRow | undefined;
  if (!row) throw notFound(`No import ${id} of yours; create_import answers with the id to follow.`);
  return dto(row);
}

/** The person's latest imports, newest first (for their pages). */
export async function recentImports(db: Knex, ownerId: string, limit = 10): Promise<ImportDto[]> {
  return ((await db('imports').where({ owner_id: ownerId }).orderBy('created_at', 'desc').limit(limit)) as ImportRow[]).map(dto);
}

/**
 * Reads `input` into a plan. `existing` is the list a CSV goes into (listId), already
 * resolved; `timeZone` the person's, for due dates written in words.
 */
export function planImport(input: ImportInput, context: { timeZone: string; now: Date; existing?: ExistingList }): ImportPlan {
  switch (input.format) {
    case 'listkeeper':
      if (!input.document) throw refuse("format 'listkeeper' reads the export document from 'document'; it is missing.", 'document');
      forbid(input, ['csv', 'listId', 'listName', 'columns'], 'listkeeper');
      if (!isTimeZone(input.document.timeZone))
        throw refuse(
          `The document's timeZone '${input.document.timeZone}' is not an IANA time zone such as Europe/London; its date-only due dates are days in it.`,
          'document.timeZone',
        );
      return planDocument(input.document);
    case 'csv':
      if (input.csv === undefined) throw refuse("format 'csv' reads the file's text from 'csv'; it is missing.", 'csv');
      forbid(input, ['document'], 'csv');
      if (input.listId !== undefined && input.listName !== undefined)
        throw refuse("Give 'listId' (an existing list to add to) or 'listName' (a new list), not both.", 'listName');
      return planCsv(input.csv, input.columns ?? [], input.listName ?? 'Imported', context);
    case 'todoist':
      if (input.csv === undefined) throw refuse("format 'todoist' reads the exported project's CSV from 'csv'; it is missing.", 'csv');
      forbid(input, ['document', 'listId', 'columns'], 'todoist');
      return planTodoist(input.csv, input.listName ?? 'Todoist', context);
  }
}

function forbid(input: ImportInput, fields: (keyof ImportInput)[], format: string): void {
  for (const field of fields) if (input[field] !== undefined) throw refuse(`'${field}' does not go with format '${format}'; leave it out.`, field);
}
