/**
 * The workspace overview that get_context answers: the open tasks by section, recent notes,
 * automations and recent activity.
 * @see openapi/openapi.yaml get_context
 */
import type { Knex } from 'knex';
import { describe } from '../items/recurrence.js';
import type { OpOutput } from '../../core/context.js';
import { keepsTasks, type ListRow } from '../lists/lists.js';
import { iso, startOfLocalDay } from '../time.js';
import { lastRuns, listAutomations, runSummary } from '../automations/automations.js';
import { whereInReach } from '../reach.js';

type Context = OpOutput<'get_context'>;
type ContextTask = Context['tasks']['overdue'][number];

const SECTION_LIMIT = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the person did in the last three days, newest first (at most 20 entries). */
export async function recentActivity(db: Knex, userId: string, now: Date): Promise<Context['activity']> {
  const rows = (await db('activity')
    .where({ user_id: userId })
    .modify((q) => whereInReach(q, 'list_id'))
    .where('at', '>=', new Date(now.getTime() - 3 * DAY_MS))
    .orderBy('at', 'desc')
    .limit(20)) as { at: Date; action: string; summary: string; via_connection: boolean }[];
  return rows.map((a) => ({ at: a.at.toISOString(), action: a.action, summary: a.summary, viaConnection: a.via_connection }));
}

/** The open tasks of the task-keeping lists among `lists`, in the overview's sections. */
export async function taskSections(db: Knex, lists: ListRow[], now: Date, timeZone: string): Promise<Context['tasks']> {
  const empty = { overdue: [], dueToday: [], inProgress: [], upcoming: [], unsorted: [], remindersComing: [] };
  const taskLists = lists.filter(keepsTasks);
  if (taskLists.length === 0) return empty;
  const names = new Map(taskLists.map((l) => [l.id, l.name]));
  const dayStart = startOfLocalDay(now, timeZone);
  const dayEnd = new Date(dayStart.getTime() + DAY_MS);
  const open = () =>
    db('items')
      .whereIn('list_id', [...names.keys()])
      .whereNull('deleted_at')
      .whereNull('archived_at')
      .where('is_template', false)
      .whereRaw(`task_status IS DISTINCT FROM 'completed'`)
      .limit(SECTION_LIMIT)
      .select('id', 'title', 'task_status', 'due_at', 'list_id', 'recurrence', 'labels');
  const [overdue, dueToday, inProgress, upcoming, unsorted, reminders] = await Promise.all([
    open().where('due_at', '<', dayStart).orderBy('due_at'),
    open().where('due_at', '>=', dayStart).where('due_at', '<', dayEnd).orderBy('due_at'),
    open().where('task_status', 'inProgress').orderBy('updated_at', 'desc'),
    open()
      .where('due_at', '>=', dayEnd)
      .where('due_at', '<', new Date(dayEnd.getTime() + 7 * DAY_MS))
      .orderBy('due_at'),
    open().whereNull('due_at').orderBy('created_at', 'desc'),
    open()
      .where('reminder_at', '>', now)
      .where('reminder_at', '<=', new Date(now.getTime() + DAY_MS))
      .whereNull('archived_at')
      .orderBy('reminder_at')
      .select('reminder_at'),
  ]);
  const toTask = (r: {
    id: string;
    title: string | null;
    task_status: ContextTask['taskStatus'];
    due_at: Date | null;
    list_id: string;
    recurrence: string | null;
    labels: string[] | null;
  }): ContextTask => ({
    id: r.id,
    title: r.title,
    taskStatus: r.task_status ?? 'todo',
    dueAt: iso(r.due_at),
    listId: r.list_id,
    listName: names.get(r.list_id) ?? '',
    ...(r.recurrence ? { repeats: describe(r.recurrence) } : {}),
    ...(r.labels?.length ? { labels: r.labels } : {}),
  });
  return {
    overdue: overdue.map(toTask),
    dueToday: dueToday.map(toTask),
    inProgress: inProgress.map(toTask),
    upcoming: upcoming.map(toTask),
    unsorted: unsorted.map(toTask),
    remindersComing: reminders.map((r: Parameters<typeof toTask>[0] & { reminder_at: Date }) => ({ ...toTask(r), reminderAt: r.reminder_at.toISOString() })),
  };
}

/** The five most recently changed notes. */
export async function recentNotesOf(db: Knex, lists: ListRow[]): Promise<Context['recentNotes']> {
  const notes = lists.filter((l) => l.system_role === 'notes').map((l) => l.id);
  if (notes.length === 0) return [];
  const rows = await db('items')
    .whereIn('list_id', notes)
    .whereNull('deleted_at')
    .whereNull('archived_at')
    .orderBy('updated_at', 'desc')
    .limit(5)
    .select('id', 'title', 'updated_at');
  return rows.map((r: { id: string; title: string | null; updated_at: Date }) => ({ id: r.id, title: r.title, updatedAt: r.updated_at.toISOString() }));
}

/** The person's automations with their last run. */
export async function automationsOf(db: Knex, userId: string): Promise<Context['automations']> {
  const rows = await listAutomations(db, userId);
  const last = await lastRuns(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const run = last.get(r.id);
    return { id: r.id, name: r.name, status: r.status, nextRunAt: iso(r.next_run_at), lastRun: run ? runSummary(run) : null };
  });
}
