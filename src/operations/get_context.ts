import type { Knex } from 'knex';
import type { Handler, OpOutput } from '../core/context.js';
import { keepsTasks, listDto, liveLists, openItemCounts, resolveList, type ListRow } from '../domain/lists.js';
import { getUser } from '../domain/accounts.js';
import { iso, localNow, startOfLocalDay } from '../domain/time.js';
import { linkRoots } from '../domain/links.js';
import { lastRuns, listAutomations, runSummary } from '../domain/automations/automations.js';

type Context = OpOutput<'get_context'>;
type ContextTask = Context['tasks']['overdue'][number];

const SECTION_LIMIT = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

const ABOUT = [
  "listkeeper keeps this person's workspace: lists, and items on them (to-dos, notes, rows of any list).",
  'Every list has properties with stable ids; item values are keyed by property id. Lists with role "tasks" keep status (todo, inProgress, completed) and due date.',
  'Read items with list_items (filters, changes feed), query_items (count, sum, where clauses on one list) or get_item (one item, with forEditing for block handles).',
  'Write with create_items and update_items in batches; edit long bodies block by block with update_items edits instead of resending them.',
  'Deletes go to the trash for about 30 days; restore_deleted brings them back.',
  "Talk to the person in an item's chat with post_chat_message; read their answers with read_chat_messages.",
];

/** GET /context: the workspace overview, the best first call for an agent. */
export const get_context: Handler<'get_context'> = async ({ db, principal, services, config }, input) => {
  const user = await getUser(db, principal.userId);
  const now = services.now();
  const lists = await liveLists(db, principal.userId);
  const focus = input.focusListId ? await resolveList(db, principal.userId, input.focusListId) : null;
  const counts = await openItemCounts(
    db,
    lists.map((l) => l.id),
  );
  const taskLists = focus ? [focus] : lists.filter(keepsTasks);
  const [memory, tasks, recentNotes, automations, activity] = await Promise.all([
    db('memory').where({ user_id: user.id }).orderBy('created_at').select('text'),
    taskSections(db, taskLists, now, user.timezone),
    recentNotesOf(db, lists),
    automationsOf(db, user.id),
    db('activity')
      .where({ user_id: user.id })
      .where('at', '>=', new Date(now.getTime() - 3 * DAY_MS))
      .orderBy('at', 'desc')
      .limit(20),
  ]);
  return {
    about: ABOUT,
    user: { id: user.id, name: user.name, email: user.email, timezone: user.timezone, ...localNow(now, user.timezone) },
    memory: memory.map((m: { text: string }) => m.text),
    lists: lists.map((l) => {
      const dto = listDto(l, counts.get(l.id) ?? 0, true);
      return { id: dto.id, name: dto.name, icon: dto.icon, role: dto.role, itemCount: dto.itemCount, isLifeAdmin: dto.isLifeAdmin, properties: dto.properties };
    }),
    tasksListId: lists.find((l) => l.system_role === 'tasks')?.id ?? null,
    notesListId: lists.find((l) => l.system_role === 'notes')?.id ?? null,
    focusListId: focus?.id ?? null,
    tasks,
    recentNotes,
    automations,
    activity: activity.map((a: { at: Date; action: string; summary: string; via_connection: boolean }) => ({
      at: a.at.toISOString(),
      action: a.action,
      summary: a.summary,
      viaConnection: a.via_connection,
    })),
    unavailable: ['email', 'connected apps'],
    links: linkRoots(config),
  };
};

async function taskSections(db: Knex, lists: ListRow[], now: Date, timeZone: string): Promise<Context['tasks']> {
  const empty = { overdue: [], dueToday: [], inProgress: [], upcoming: [], unsorted: [] };
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
      .select('id', 'title', 'task_status', 'due_at', 'list_id');
  const [overdue, dueToday, inProgress, upcoming, unsorted] = await Promise.all([
    open().where('due_at', '<', dayStart).orderBy('due_at'),
    open().where('due_at', '>=', dayStart).where('due_at', '<', dayEnd).orderBy('due_at'),
    open().where('task_status', 'inProgress').orderBy('updated_at', 'desc'),
    open()
      .where('due_at', '>=', dayEnd)
      .where('due_at', '<', new Date(dayEnd.getTime() + 7 * DAY_MS))
      .orderBy('due_at'),
    open().whereNull('due_at').orderBy('created_at', 'desc'),
  ]);
  const toTask = (r: { id: string; title: string | null; task_status: ContextTask['taskStatus']; due_at: Date | null; list_id: string }): ContextTask => ({
    id: r.id,
    title: r.title,
    taskStatus: r.task_status ?? 'todo',
    dueAt: iso(r.due_at),
    listId: r.list_id,
    listName: names.get(r.list_id) ?? '',
  });
  return {
    overdue: overdue.map(toTask),
    dueToday: dueToday.map(toTask),
    inProgress: inProgress.map(toTask),
    upcoming: upcoming.map(toTask),
    unsorted: unsorted.map(toTask),
  };
}

async function recentNotesOf(db: Knex, lists: ListRow[]): Promise<Context['recentNotes']> {
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

async function automationsOf(db: Knex, userId: string): Promise<Context['automations']> {
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
