/**
 * Finding the item a person means: its id, or the start of its title. Titles are looked up on
 * the task lists first, then on the other lists one by one (or only on `--list`); the start of
 * a title has to name one item, else the candidates are listed with their ids.
 */
import type { Schemas } from '@listkeeper/sdk';
import { CliError } from './output.js';
import type { Service } from './service-client.js';

export type TaskStatus = Schemas['TaskStatus'];
export type Found = Pick<Schemas['ItemRow'], 'id' | 'title' | 'taskStatus' | 'dueAt' | 'hasDueTime'> & { listId: string | null };

export const OPEN_STATUSES: TaskStatus[] = ['todo', 'inProgress'];
export const ALL_STATUSES: TaskStatus[] = ['todo', 'inProgress', 'completed'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How an item is named in sentences: its title in quotes, or its id when it has none. */
export function named(item: { id: string; title: string | null }): string {
  return item.title ? `'${item.title}'` : item.id;
}

function normal(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The items of one list (or the task lists) whose title starts with `prefix`. */
async function startingWith(service: Service, prefix: string, listId: string | undefined, statuses: TaskStatus[]): Promise<Found[]> {
  const page = await service.items.list({ ...(listId ? { listId } : {}), query: prefix, taskStatus: statuses, limit: 200 });
  return page.items.filter((item) => item.title !== null && normal(item.title).startsWith(normal(prefix)));
}

/** One item out of the candidates: the only one, or the only one titled exactly so. */
function pick(prefix: string, found: Found[]): Found {
  if (found.length === 1) return found[0]!;
  const exact = found.filter((item) => normal(item.title ?? '') === normal(prefix));
  if (exact.length === 1) return exact[0]!;
  const shown = found.slice(0, 5).map((item) => `${named(item)} (${item.id})`);
  throw new CliError(
    `'${prefix}' starts the title of ${found.length} items: ${shown.join(', ')}${found.length > 5 ? ', …' : ''}. Give more of the title, or the id.`,
  );
}

/**
 * The item `ref` names: an id, or the start of a title. `statuses` are the tasks considered
 * (open ones for `done`); `list` (a name or id) narrows the look-up to one list.
 */
export async function findItem(service: Service, ref: string, options: { list?: string | undefined; statuses: TaskStatus[] }): Promise<Found> {
  const text = ref.trim();
  if (!text) throw new CliError('Name the item: its id, or the start of its title.');
  if (UUID.test(text)) return service.items.get({ id: text });
  if (options.list) {
    const found = await startingWith(service, text, options.list, options.statuses);
    if (found.length === 0) throw new CliError(`No item on '${options.list}' has a title starting with '${text}'; 'listkeeper ls ${options.list}' shows them.`);
    return pick(text, found);
  }
  const onTaskLists = await startingWith(service, text, undefined, options.statuses);
  if (onTaskLists.length > 0) return pick(text, onTaskLists);
  const { lists } = await service.lists.list({ suppressOptions: true });
  for (const list of lists.filter((l) => l.role !== 'tasks')) {
    const found = await startingWith(service, text, list.id, options.statuses);
    if (found.length > 0) return pick(text, found);
  }
  const which = options.statuses.includes('completed') ? 'item' : 'open item';
  throw new CliError(`No ${which} has a title starting with '${text}'; 'listkeeper ls' shows your tasks, 'listkeeper search ${text}' looks everywhere.`);
}
