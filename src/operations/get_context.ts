import type { Handler } from '../core/context.js';
import { keepsTasks, listDto, liveLists, openItemCounts, resolveList } from '../domain/lists/lists.js';
import { getUser } from '../domain/accounts/accounts.js';
import { localNow } from '../domain/time.js';
import { linkRoots } from '../domain/items/urls.js';
import { listMemory } from '../domain/accounts/memory.js';
import { storageOf } from '../domain/media/storage.js';
import { labelCatalogue } from '../domain/items/labels.js';
import { automationsOf, recentActivity, recentNotesOf, taskSections } from '../domain/query/overview.js';

const ABOUT = [
  "listkeeper keeps this person's workspace: lists, and items on them (to-dos, notes, rows of any list).",
  'Every list has properties with stable ids; item values are keyed by property id. Lists with role "tasks" keep status (todo, inProgress, completed) and due date.',
  'Read items with list_items (filters, changes feed), query_items (count, sum, where clauses on one list) or get_item (one item, with forEditing for block handles).',
  'Write with create_items and update_items in batches; edit long bodies block by block with update_items edits instead of resending them.',
  'Tasks can repeat (recurrence: "every weekday at 9"; completing one moves it to its next occurrence) and any item can carry labels (filter list_items by label); dueAt also takes words such as "tomorrow 5pm".',
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
  const [memory, tasks, recentNotes, automations, activity, storage, labels] = await Promise.all([
    listMemory(db, user.id),
    taskSections(db, taskLists, now, user.timezone),
    recentNotesOf(db, lists),
    automationsOf(db, user.id),
    recentActivity(db, user.id, now),
    storageOf(db, config, user.id),
    labelCatalogue(db, user.id),
  ]);
  return {
    about: ABOUT,
    user: { id: user.id, name: user.name, email: user.email, timezone: user.timezone, ...localNow(now, user.timezone) },
    memory: memory.map((m) => m.text),
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
    activity,
    unavailable: ['email', 'connected apps'],
    storage,
    labels: labels.slice(0, 20),
    links: linkRoots(config),
  };
};
