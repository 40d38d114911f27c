/**
 * Automations: standing orders the service runs itself, on a cron schedule in the person's
 * time zone or on demand. Definitions (name, status, schedule, actions) are checked against
 * the `AutomationAction` schema of openapi.yaml, the one place the actions are defined.
 * @see openapi/openapi.yaml components/schemas/Automation, AutomationRun
 */
import { timeZoneOf } from '../accounts/accounts.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import cronParser from 'cron-parser';
import type { Knex } from 'knex';
import { openapiDocument } from '../../generated/openapi-document.js';
import type { components } from '../../generated/api.js';
import { invalid, notFound } from '../../core/errors.js';
import { isUuid } from '../ids.js';
import { decodeCursor, encodeCursor, SHAPES } from '../cursors.js';
import { iso } from '../time.js';
import { currentReach } from '../reach.js';

export type AutomationAction = components['schemas']['AutomationAction'];
export type AutomationDto = components['schemas']['Automation'];
export type RunSummary = components['schemas']['AutomationRunSummary'];
export type AutomationStatus = 'active' | 'paused' | 'draft';
export type RunOutcome = 'queued' | 'running' | 'succeeded' | 'failed';

export interface AutomationRow {
  id: string;
  owner_id: string;
  name: string;
  description: string;
  status: AutomationStatus;
  schedule: string | null;
  actions: AutomationAction[];
  next_run_at: Date | null;
  chat_item_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface RunRow {
  id: string;
  automation_id: string;
  owner_id: string;
  trigger: 'schedule' | 'manual';
  scheduled_for: Date | null;
  outcome: RunOutcome;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  wrote: string[];
  message: string | null;
  error: string | null;
}

/** What a person writes to make an automation (the CLI's JSON or YAML file). */
export interface AutomationDefinition {
  name: string;
  description?: string;
  status?: AutomationStatus;
  schedule?: string | null;
  actions: AutomationAction[];
}

const MAX_ACTIONS = 20;
const ajv = new Ajv2020({ strict: false, allErrors: false });
const schemas = (openapiDocument.components as { schemas: Record<string, object> }).schemas;
// Compiled beside the other schemas, so the references inside it (an item template) resolve.
const validateAction = ajv.compile({ $ref: '#/components/schemas/AutomationAction', components: { schemas } });

/** The next tick of `schedule` (cron, in `timeZone`) strictly after `after`. */
export function nextRun(schedule: string, timeZone: string, after: Date): Date {
  return cronParser.parseExpression(schedule, { tz: timeZone, currentDate: after }).next().toDate();
}

/** Checks a definition; throws `invalid` naming the first problem. */
export function checkDefinition(def: unknown): Required<Omit<AutomationDefinition, 'description'>> & { description: string } {
  if (!def || typeof def !== 'object' || Array.isArray(def))
    throw invalid('An automation definition is an object with name, actions and optionally description, status and schedule.');
  const d = def as Record<string, unknown>;
  const unknown = Object.keys(d).filter((k) => !['name', 'description', 'status', 'schedule', 'actions'].includes(k));
  if (unknown.length) throw invalid(`Unknown field ${unknown.map((k) => `'${k}'`).join(', ')}; valid: name, description, status, schedule, actions.`);
  if (typeof d.name !== 'string' || !d.name.trim() || d.name.length > 200) throw invalid('name must be a non-empty string of at most 200 characters.', 'name');
  if (d.description !== undefined && (typeof d.description !== 'string' || d.description.length > 1000))
    throw invalid('description must be a string of at most 1000 characters.', 'description');
  const status = (d.status ?? 'active') as AutomationStatus;
  if (!['active', 'paused', 'draft'].includes(status)) throw invalid(`status must be active, paused or draft; received '${String(d.status)}'.`, 'status');
  const schedule = d.schedule === undefined || d.schedule === null || d.schedule === '' ? null : d.schedule;
  if (schedule !== null) {
    if (typeof schedule !== 'string')
      throw invalid('schedule must be a cron expression such as "0 9 * * 1" (Mondays at 09:00), or null for on demand only.', 'schedule');
    if (schedule.trim().split(/\s+/).length !== 5)
      throw invalid(`schedule '${schedule}' must have five fields: minute hour day-of-month month day-of-week.`, 'schedule');
    try {
      nextRun(schedule, 'UTC', new Date());
    } catch (err) {
      throw invalid(`schedule '${schedule}' is not a cron expression: ${(err as Error).message}.`, 'schedule');
    }
  }
  if (!Array.isArray(d.actions) || d.actions.length === 0 || d.actions.length > MAX_ACTIONS)
    throw invalid(`actions must be a list of 1 to ${MAX_ACTIONS} actions.`, 'actions');
  const actions = d.actions.map((a: unknown, i) => {
    const copy = structuredClone(a);
    if (!validateAction(copy)) {
      const type = (a as { type?: unknown } | null)?.type;
      const known = ['createItems', 'archiveCompleted', 'rescheduleOverdue', 'moveOverdue', 'postDigest', 'webhook'];
      if (!known.includes(type as string))
        throw invalid(`actions[${i}].type must be one of ${known.join(', ')}; received ${JSON.stringify(type)}.`, `actions[${i}].type`);
      throw invalid(`actions[${i}] (${String(type)}) does not match its schema; see AutomationAction in the OpenAPI document.`, `actions[${i}]`);
    }
    return copy as AutomationAction;
  });
  return {
    name: d.name.trim(),
    description: (d.description as string | undefined)?.trim() || describe(actions),
    status,
    schedule: schedule as string | null,
    actions,
  };
}

/** What the actions do, in words (the description when the author gave none). */
export function describe(actions: AutomationAction[]): string {
  const parts = actions.map((a) => {
    switch (a.type) {
      case 'createItems':
        return `creates ${a.items.length === 1 ? `'${a.items[0]!.title}'` : `${a.items.length} items`} on ${a.listId ?? 'tasks'}`;
      case 'archiveCompleted':
        return `archives completed items older than ${a.olderThanDays} days`;
      case 'rescheduleOverdue':
        return `moves overdue tasks to ${a.to}`;
      case 'moveOverdue':
        return `moves overdue tasks to the list ${a.toListId}`;
      case 'postDigest':
        return `posts a digest of overdue and due tasks${a.daysAhead ? ` (and the next ${a.daysAhead} days)` : ''}`;
      case 'webhook':
        return `calls the webhook ${new URL(a.url, 'https://invalid').host}`;
    }
  });
  const text = parts.join(', then ');
  return `${text.charAt(0).toUpperCase() + text.slice(1)}.`;
}

/** The automation `id` of `ownerId`, or 404. */
export async function getAutomation(db: Knex, ownerId: string, id: string, lock = false): Promise<AutomationRow> {
  const query = db('automations')
    .where({ id: isUuid(id) ? id : '00000000-0000-0000-0000-000000000000', owner_id: ownerId })
    .first();
  const row = (await (lock ? query.forUpdate() : query)) as AutomationRow | undefined;
  if (!row) throw notFound(`No automation ${id} in your workspace; list_automations shows them.`);
  return row;
}

/** Creates an automation from a checked definition. */
export async function createAutomation(db: Knex, ownerId: string, def: unknown, now: Date): Promise<AutomationRow> {
  const checked = checkDefinition(def);
  const tz = await timeZoneOf(db, ownerId);
  const [row] = (await db('automations')
    .insert({
      owner_id: ownerId,
      name: checked.name,
      description: checked.description,
      status: checked.status,
      schedule: checked.schedule,
      actions: JSON.stringify(checked.actions),
      next_run_at: checked.status === 'active' && checked.schedule ? nextRun(checked.schedule, tz, now) : null,
    })
    .returning('*')) as AutomationRow[];
  return row!;
}

/** Moves an automation to `status`; an active one with a schedule gets its next run from now. */
export async function setStatus(db: Knex, ownerId: string, id: string, status: AutomationStatus, now: Date): Promise<AutomationRow> {
  const current = await getAutomation(db, ownerId, id);
  const tz = await timeZoneOf(db, ownerId);
  const [row] = (await db('automations')
    .where({ id: current.id })
    .update({ status, next_run_at: status === 'active' && current.schedule ? nextRun(current.schedule, tz, now) : null, updated_at: now })
    .returning('*')) as AutomationRow[];
  return row!;
}

/** Deletes an automation and its runs (its chat item stays on the Notes list). */
export async function deleteAutomation(db: Knex, ownerId: string, id: string): Promise<AutomationRow> {
  const current = await getAutomation(db, ownerId, id);
  await db('automations').where({ id: current.id }).delete();
  return current;
}

/** The person's time zone: automations run on it (domain/accounts/accounts.ts has it). */
export { timeZoneOf };

/** The automations of `ownerId`, oldest first. */
export async function listAutomations(db: Knex, ownerId: string): Promise<AutomationRow[]> {
  // Automations act across the workspace: a connection that reaches chosen lists sees none.
  if (currentReach()) return [];
  return (await db('automations').where({ owner_id: ownerId }).orderBy('created_at').orderBy('id')) as AutomationRow[];
}

/** The newest run of each automation. */
export async function lastRuns(db: Knex, automationIds: string[]): Promise<Map<string, RunRow>> {
  if (automationIds.length === 0) return new Map();
  const rows = (await db('automation_runs')
    .distinctOn('automation_id')
    .whereIn('automation_id', automationIds)
    .orderBy([{ column: 'automation_id' }, { column: 'created_at', order: 'desc' }])) as RunRow[];
  return new Map(rows.map((r) => [r.automation_id, r]));
}

/** An automation's latest runs, newest first. */
export async function latestRuns(db: Knex, automationId: string, limit: number): Promise<RunRow[]> {
  return (await runPage(db, automationId, limit)).runs;
}

/** A page of an automation's runs, newest first, after `cursor` (a previous page's nextCursor). */
export async function runPage(
  db: Knex,
  automationId: string,
  limit: number,
  cursor?: string,
): Promise<{ runs: RunRow[]; hasMore: boolean; nextCursor: string | null }> {
  const q = db('automation_runs')
    .where({ automation_id: automationId })
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .select('*', db.raw('created_at::text AS k_at'));
  if (cursor !== undefined) {
    const [at, id] = decodeCursor(cursor, 'runs', [SHAPES.timestamptz, SHAPES.uuid]);
    q.whereRaw('(created_at, id) < (?::timestamptz, ?::uuid)', [at!, id!]);
  }
  const rows = (await q) as (RunRow & { k_at: string })[];
  const runs = rows.slice(0, limit);
  const last = runs[runs.length - 1];
  const hasMore = rows.length > limit;
  return { runs, hasMore, nextCursor: hasMore && last ? encodeCursor('runs', [last.k_at, last.id]) : null };
}

/** A run as the automation's summary shows it. */
export function runSummary(run: RunRow): RunSummary {
  return {
    runId: run.id,
    startedAt: (run.started_at ?? run.created_at).toISOString(),
    finishedAt: iso(run.finished_at),
    outcome: run.outcome,
    error: run.error,
  };
}

/** An automation as the API shows it. */
export function automationDto(row: AutomationRow, timeZone: string, last: RunRow | undefined): AutomationDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    schedule: row.schedule,
    timezone: timeZone,
    nextRunAt: iso(row.next_run_at),
    lastRun: last ? runSummary(last) : null,
    chatItemId: row.chat_item_id,
    actions: row.actions,
  };
}
