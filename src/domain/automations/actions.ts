/**
 * The actions an automation run performs on the person's own workspace. Each action writes
 * in its own transaction and returns the one line the run records for it; a thrown error
 * ends the run (what earlier actions wrote stays, and the run says so).
 * @see openapi/openapi.yaml components/schemas/Automation (actions)
 */
import type { Knex } from 'knex';
import type { Config } from '../../core/config.js';
import { recordServiceActivity } from '../changes/activity.js';
import { keepsDueDate, keepsStatus, keepsTasks, liveLists, resolveList, type ListRow } from '../lists/lists.js';
import { localNow, localToUtc, startOfLocalDay } from '../time.js';
import { itemUrls } from '../items/urls.js';
import { outboundRequest } from '../../core/outbound.js';
import { moveItems } from '../items/move.js';
import type { Logger } from 'pino';
import type { AutomationAction, AutomationRow } from './automations.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const DIGEST_SECTION_LIMIT = 25;

export interface RunContext {
  db: Knex;
  config: Config;
  automation: AutomationRow;
  runId: string;
  trigger: 'schedule' | 'manual';
  timeZone: string;
  now: Date;
  /** Lines written so far (the webhook sends them). */
  wrote: string[];
  /** The digest, once a postDigest action made it: it becomes part of the run's message. */
  digest: Digest | null;
  log: Logger;
}

export class ActionFailed extends Error {}

/**
 * The local date `days` days after the local day of `at`, as [year, month, day] and its
 * start. Days are counted by calendar, not by 24 hours, so a DST change in between is no shift.
 */
function localDay(at: Date, days: number, timeZone: string): { ymd: [number, number, number]; start: Date } {
  // Noon of the local day, plus whole days, stays inside the wanted day whatever the offset.
  const noon = new Date(startOfLocalDay(at, timeZone).getTime() + days * DAY_MS + 12 * 3600 * 1000);
  const ymd = localNow(noon, timeZone).today.split('-').map(Number) as [number, number, number];
  return { ymd, start: startOfLocalDay(noon, timeZone) };
}

type Of<T extends AutomationAction['type']> = Extract<AutomationAction, { type: T }>;

/** Performs one action; returns the line that says what it wrote. */
export async function performAction(run: RunContext, action: AutomationAction): Promise<string> {
  switch (action.type) {
    case 'createItems':
      return createItems(run, action);
    case 'archiveCompleted':
      return archiveCompleted(run, action);
    case 'rescheduleOverdue':
      return rescheduleOverdue(run, action);
    case 'moveOverdue':
      return moveOverdue(run, action);
    case 'postDigest':
      return postDigest(run, action);
    case 'webhook':
      return callWebhook(run, action);
  }
}

async function listOrFail(trx: Knex, run: RunContext, listId: string): Promise<ListRow> {
  try {
    return await resolveList(trx, run.automation.owner_id, listId);
  } catch {
    throw new ActionFailed(`the list '${listId}' is not in the workspace any more; change the automation's listId.`);
  }
}

/** The lists an action works on: the one named, else every live list that `fits`. */
async function targetLists(trx: Knex, run: RunContext, listId: string | undefined, fits: (l: ListRow) => boolean, needs: string): Promise<ListRow[]> {
  if (listId === undefined) return (await liveLists(trx, run.automation.owner_id)).filter(fits);
  const list = await listOrFail(trx, run, listId);
  if (!fits(list)) throw new ActionFailed(`the list '${list.name}' keeps no ${needs}.`);
  return [list];
}

function activity(trx: Knex, run: RunContext, action: string, summary: string, listId: string | null = null): Promise<void> {
  return recordServiceActivity(trx, run.automation.owner_id, { action, summary, listId, by: `automation '${run.automation.name}'` });
}

function quoteTitles(titles: (string | null)[]): string {
  const shown = titles.slice(0, 5).map((t) => `'${t ?? '(untitled)'}'`);
  return shown.join(', ') + (titles.length > 5 ? ` and ${titles.length - 5} more` : '');
}

async function createItems(run: RunContext, action: Of<'createItems'>): Promise<string> {
  const { today } = localNow(run.now, run.timeZone);
  const fill = (text: string) => text.replaceAll('{date}', today);
  return run.db.transaction(async (trx) => {
    const list = await listOrFail(trx, run, action.listId ?? 'tasks');
    const rows = action.items.map((item) => {
      const row: Record<string, unknown> = {
        owner_id: run.automation.owner_id,
        list_id: list.id,
        title: fill(item.title),
        body: item.body === undefined ? null : fill(item.body),
        created_at: run.now,
        updated_at: run.now,
        edited_at: run.now,
      };
      if (keepsStatus(list)) row.task_status = 'todo';
      if (item.dueInDays !== undefined) {
        if (!keepsDueDate(list)) throw new ActionFailed(`the list '${list.name}' keeps no due date; drop dueInDays or use a tasks list.`);
        const [y, m, d] = localDay(run.now, item.dueInDays, run.timeZone).ymd;
        const [hh, mm] = item.dueTime ? (item.dueTime.split(':').map(Number) as [number, number]) : [0, 0];
        row.due_at = localToUtc(y, m, d, hh, mm, run.timeZone);
        row.has_due_time = item.dueTime !== undefined;
      }
      return row;
    });
    const inserted = (await trx('items').insert(rows).returning(['id', 'title'])) as { id: string; title: string | null }[];
    const line = `Created ${inserted.length} item${inserted.length === 1 ? '' : 's'} on '${list.name}': ${quoteTitles(inserted.map((i) => i.title))}.`;
    await activity(trx, run, 'items.created', line, list.id);
    return line;
  });
}

async function archiveCompleted(run: RunContext, action: Of<'archiveCompleted'>): Promise<string> {
  return run.db.transaction(async (trx) => {
    const lists = await targetLists(trx, run, action.listId, keepsStatus, 'status');
    const cutoff = new Date(run.now.getTime() - action.olderThanDays * DAY_MS);
    const archived = lists.length
      ? ((await trx('items')
          .whereIn(
            'list_id',
            lists.map((l) => l.id),
          )
          .where({ task_status: 'completed' })
          .where('completed_at', '<', cutoff)
          .whereNull('archived_at')
          .whereNull('deleted_at')
          .update({ archived_at: run.now, updated_at: run.now })
          .returning(['id', 'title'])) as { id: string; title: string | null }[])
      : [];
    const where = lists.length === 1 ? `'${lists[0]!.name}'` : `${lists.length} lists`;
    const line = archived.length
      ? `Archived ${archived.length} item${archived.length === 1 ? '' : 's'} completed more than ${action.olderThanDays} days ago on ${where}: ${quoteTitles(archived.map((i) => i.title))}.`
      : `Archived nothing: no item on ${where} was completed more than ${action.olderThanDays} days ago.`;
    if (archived.length) await activity(trx, run, 'items.archived', line);
    return line;
  });
}

/** Open, live, unarchived tasks on `lists` due in [from, to). */
function openTasks(trx: Knex, lists: ListRow[], from: Date | null, to: Date) {
  const q = trx('items')
    .whereIn(
      'list_id',
      lists.map((l) => l.id),
    )
    .whereNull('deleted_at')
    .whereNull('archived_at')
    .where('is_template', false)
    .whereRaw(`task_status IS DISTINCT FROM 'completed'`)
    .where('due_at', '<', to)
    .orderBy('due_at')
    .orderBy('created_at');
  return from ? q.where('due_at', '>=', from) : q;
}

async function rescheduleOverdue(run: RunContext, action: Of<'rescheduleOverdue'>): Promise<string> {
  return run.db.transaction(async (trx) => {
    const lists = await targetLists(trx, run, action.listId, keepsTasks, 'status and due date');
    const dayStart = startOfLocalDay(run.now, run.timeZone);
    const overdue = lists.length
      ? ((await openTasks(trx, lists, null, dayStart).forUpdate()) as { id: string; title: string | null; due_at: Date; has_due_time: boolean | null }[])
      : [];
    const [y, m, d] = localDay(run.now, action.to === 'today' ? 0 : 1, run.timeZone).ymd;
    for (const item of overdue) {
      // A task with a time of day keeps it on the new day.
      const [hh, mm] = item.has_due_time ? (localNow(item.due_at, run.timeZone).localTime.split(':').map(Number) as [number, number]) : [0, 0];
      await trx('items')
        .where({ id: item.id })
        .update({ due_at: localToUtc(y, m, d, hh, mm, run.timeZone), updated_at: run.now });
    }
    const line = overdue.length
      ? `Moved ${overdue.length} overdue task${overdue.length === 1 ? '' : 's'} to ${action.to} (${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}): ${quoteTitles(overdue.map((i) => i.title))}.`
      : 'Moved nothing: no task is overdue.';
    if (overdue.length) await activity(trx, run, 'items.rescheduled', line);
    return line;
  });
}

/** At most this many tasks move in one run (move_items takes 100 a call). */
const MOVE_LIMIT = 100;

async function moveOverdue(run: RunContext, action: Of<'moveOverdue'>): Promise<string> {
  const target = await listOrFail(run.db, run, action.toListId);
  const lists = (await targetLists(run.db, run, action.listId, keepsTasks, 'status and due date')).filter((l) => l.id !== target.id);
  const overdue = lists.length
    ? ((await openTasks(run.db, lists, null, startOfLocalDay(run.now, run.timeZone)).limit(MOVE_LIMIT).select('id', 'title')) as {
        id: string;
        title: string | null;
      }[])
    : [];
  if (overdue.length === 0) return `Moved nothing to '${target.name}': no task is overdue.`;
  // The move of move_items, so a move by an automation follows the same rules.
  const principal = {
    userId: run.automation.owner_id,
    via: 'apiKey' as const,
    clientName: `automation '${run.automation.name}'`,
    tokenId: `automation:${run.automation.id}`,
  };
  const moved = await run.db.transaction((trx) => moveItems(trx, principal, { itemIds: overdue.map((o) => o.id), listId: target.id }, run.now));
  if (moved.preview) {
    const names = [...new Set(moved.droppedValues.map((d) => d.property))];
    throw new ActionFailed(
      `moving ${overdue.length} overdue task${overdue.length === 1 ? '' : 's'} to '${target.name}' would drop their values${names.length ? ` (${names.join(', ')})` : ''}; nothing moved. Move them with move_items and acknowledgeDataLoss, or pick a list with the same properties.`,
    );
  }
  return `Moved ${moved.items.length} overdue task${moved.items.length === 1 ? '' : 's'} to '${target.name}': ${quoteTitles(moved.items.map((i) => i.title))}.`;
}

interface DigestTask {
  id: string;
  title: string | null;
  dueAt: string;
  listName: string;
  webUrl: string;
}
export interface Digest {
  date: string;
  overdue: DigestTask[];
  dueToday: DigestTask[];
  upcoming: DigestTask[];
  daysAhead: number;
  text: string;
}

/** Overdue tasks, tasks due today and (with `daysAhead`) the next days, as data and as Markdown. */
export async function buildDigest(db: Knex, config: Config, ownerId: string, timeZone: string, now: Date, daysAhead: number): Promise<Digest> {
  const lists = (await liveLists(db, ownerId)).filter(keepsTasks);
  const names = new Map(lists.map((l) => [l.id, l.name]));
  const dayStart = startOfLocalDay(now, timeZone);
  const dayEnd = localDay(now, 1, timeZone).start;
  const aheadEnd = localDay(now, 1 + daysAhead, timeZone).start;
  const section = async (from: Date | null, to: Date) =>
    lists.length
      ? (
          (await openTasks(db, lists, from, to).limit(DIGEST_SECTION_LIMIT)) as {
            id: string;
            title: string | null;
            due_at: Date;
            has_due_time: boolean | null;
            list_id: string;
          }[]
        ).map((r) => ({
          id: r.id,
          title: r.title,
          dueAt: r.due_at.toISOString(),
          listName: names.get(r.list_id) ?? '',
          webUrl: itemUrls(config, r.id).webUrl,
          local: localNow(r.due_at, timeZone),
          hasTime: Boolean(r.has_due_time),
        }))
      : [];
  const [overdue, dueToday, upcoming] = await Promise.all([
    section(null, dayStart),
    section(dayStart, dayEnd),
    daysAhead > 0 ? section(dayEnd, aheadEnd) : Promise.resolve([]),
  ]);
  const { today } = localNow(now, timeZone);
  const lines = [`**Digest for ${today}**`];
  const block = (heading: string, tasks: typeof overdue, when: (t: (typeof overdue)[number]) => string) => {
    if (tasks.length === 0) return;
    lines.push('', `${heading} (${tasks.length}${tasks.length === DIGEST_SECTION_LIMIT ? '+' : ''}):`);
    for (const t of tasks) lines.push(`- [${t.title ?? '(untitled)'}](${t.webUrl}) — ${when(t)} · ${t.listName}`);
  };
  block('Overdue', overdue, (t) => `was due ${t.local.today}${t.hasTime ? ` ${t.local.localTime}` : ''}`);
  block('Due today', dueToday, (t) => (t.hasTime ? `at ${t.local.localTime}` : 'today'));
  block(`Next ${daysAhead} day${daysAhead === 1 ? '' : 's'}`, upcoming, (t) => `${t.local.today}${t.hasTime ? ` ${t.local.localTime}` : ''}`);
  if (overdue.length + dueToday.length + upcoming.length === 0)
    lines.push('', daysAhead ? `Nothing is overdue or due in the next ${daysAhead + 1} days.` : 'Nothing is overdue or due today.');
  const strip = ({ local: _l, hasTime: _h, ...t }: (typeof overdue)[number]): DigestTask => t;
  return { date: today, overdue: overdue.map(strip), dueToday: dueToday.map(strip), upcoming: upcoming.map(strip), daysAhead, text: lines.join('\n') };
}

async function postDigest(run: RunContext, action: Of<'postDigest'>): Promise<string> {
  const digest = await buildDigest(run.db, run.config, run.automation.owner_id, run.timeZone, run.now, action.daysAhead ?? 0);
  run.digest = digest;
  const ahead = digest.daysAhead ? `, ${digest.upcoming.length} in the next ${digest.daysAhead} day${digest.daysAhead === 1 ? '' : 's'}` : '';
  return `Posted a digest to the automation's chat: ${digest.overdue.length} overdue, ${digest.dueToday.length} due today${ahead}.`;
}

async function callWebhook(run: RunContext, action: Of<'webhook'>): Promise<string> {
  const body = JSON.stringify({
    automationId: run.automation.id,
    name: run.automation.name,
    runId: run.runId,
    trigger: run.trigger,
    at: run.now.toISOString(),
    wrote: run.wrote,
    ...(action.includeDigest ? { digest: run.digest ?? (await buildDigest(run.db, run.config, run.automation.owner_id, run.timeZone, run.now, 0)) } : {}),
  });
  let response: Awaited<ReturnType<typeof outboundRequest>>;
  try {
    response = await outboundRequest(action.url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'webhook-id': run.runId },
      maxBytes: 64 * 1024,
      timeoutMs: 10000,
      allowPrivate: run.config.outboundAllowPrivate,
    });
  } catch (err) {
    throw new ActionFailed(`the webhook ${action.url} was not called: ${(err as Error).message}`);
  }
  if (response.status < 200 || response.status >= 300) throw new ActionFailed(`the webhook ${action.url} answered HTTP ${response.status}.`);
  return `Called the webhook ${action.url}: HTTP ${response.status}.`;
}
