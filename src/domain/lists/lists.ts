/**
 * Lists: the hub's default lists, resolving `tasks`/`notes`, role and open item counts, and
 * the List shape of the API.
 * @see openapi/openapi.yaml components/schemas/List
 */
import type { Knex } from 'knex';
import { currentReach, inReach, reachable } from '../reach.js';
import { LRUCache } from 'lru-cache';
import { isUuid } from '../ids.js';
import { buildProperties, DUE_DATE_ID, STATUS_ID, taskColumns, type Property } from './properties.js';
import { recordActivity } from '../changes/activity.js';
import type { OpInput, Principal } from '../../core/context.js';
import { notFound, toolError } from '../../core/errors.js';
import type { components } from '../../generated/api.js';

export type ListDto = components['schemas']['List'];
export type SystemRole = 'tasks' | 'notes' | 'life_admin';

export interface ListRow {
  id: string;
  owner_id: string;
  name: string;
  icon: string | null;
  instructions: string | null;
  title_label: string | null;
  layout: 'list' | 'kanban' | 'table';
  system_role: SystemRole | null;
  properties: Property[];
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  purges_at: Date | null;
}

const DEFAULT_LISTS: { role: SystemRole; name: string; icon: string; properties: () => Property[] }[] = [
  { role: 'tasks', name: 'Tasks', icon: '✅', properties: taskColumns },
  { role: 'notes', name: 'Notes', icon: '📝', properties: () => [] },
  { role: 'life_admin', name: 'Life Admin', icon: '🗂️', properties: taskColumns },
];

/** Makes the hub's Tasks, Notes and Life Admin lists for a new account. */
export async function createDefaultLists(trx: Knex, ownerId: string): Promise<void> {
  for (const list of DEFAULT_LISTS) await insertSystemList(trx, ownerId, list.role);
}

async function insertSystemList(trx: Knex, ownerId: string, role: SystemRole): Promise<ListRow> {
  const spec = DEFAULT_LISTS.find((l) => l.role === role)!;
  const [row] = await trx('lists')
    .insert({ owner_id: ownerId, name: spec.name, icon: spec.icon, layout: 'list', system_role: role, properties: JSON.stringify(spec.properties()) })
    .returning('*');
  return row as ListRow;
}

/** True when the list keeps status and due date in the task columns (rule 4). */
export function keepsTasks(list: Pick<ListRow, 'properties'>): boolean {
  return keepsStatus(list) && keepsDueDate(list);
}
export function keepsStatus(list: Pick<ListRow, 'properties'>): boolean {
  return list.properties.some((p) => p.id === STATUS_ID);
}
export function keepsDueDate(list: Pick<ListRow, 'properties'>): boolean {
  return list.properties.some((p) => p.id === DUE_DATE_ID);
}

export function roleOf(list: Pick<ListRow, 'properties'>): 'tasks' | 'notes' | 'other' {
  if (keepsTasks(list)) return 'tasks';
  return list.properties.length === 0 ? 'notes' : 'other';
}

/**
 * Resolves a `listId` (a list id, `tasks` or `notes`) to the caller's live list. `notes`
 * makes the Notes list afresh when the person deleted it (rule 3), unless `remakeNotes` is
 * false (deleting `notes` must not make a list only to trash it).
 */
export async function resolveList(trx: Knex, ownerId: string, listId: string, options: { remakeNotes?: boolean } = {}): Promise<ListRow> {
  return (await findList(trx, ownerId, listId, options)).row;
}

/** A list as read, with the version of its row: Postgres's `xmin`, which every UPDATE of the row changes. */
interface VersionedList {
  row: ListRow;
  /** null for a list found by its name or made just now: only lists read by id, `tasks` or `notes` are remembered. */
  version: string | null;
}

/** resolveList, with the version of the row it read. */
async function findList(trx: Knex, ownerId: string, listId: string, options: { remakeNotes?: boolean } = {}): Promise<VersionedList> {
  const live = async (which: Record<string, string>): Promise<VersionedList | null> => {
    const found = (await trx('lists').select('*', trx.raw('xmin::text AS row_version')).where(which).whereNull('deleted_at').first()) as
      | (ListRow & { row_version: string })
      | undefined;
    if (!found) return null;
    const { row_version: version, ...row } = found;
    return { row, version };
  };
  // A connection that reaches chosen lists never makes the Notes list afresh by naming it.
  const found = await findAnyList(trx, ownerId, listId, live, currentReach() ? { ...options, remakeNotes: false } : options);
  // A list outside the connection's grant is not there for it (domain/reach.ts).
  if (!inReach(found.row.id)) throw notFound(`No list ${listId} among the lists this connection may reach; the person chose which lists it sees.`);
  return found;
}

async function findAnyList(
  trx: Knex,
  ownerId: string,
  listId: string,
  live: (which: Record<string, string>) => Promise<VersionedList | null>,
  options: { remakeNotes?: boolean },
): Promise<VersionedList> {
  const word = listId.trim().toLowerCase();
  if (word === 'tasks' || word === 'notes') {
    const found = await live({ owner_id: ownerId, system_role: word });
    if (found) return found;
    if (word === 'notes' && options.remakeNotes !== false) return { row: await insertSystemList(trx, ownerId, 'notes'), version: null };
    if (word === 'notes') throw notFound('You have no Notes list to delete: it was deleted already (any other call that addresses notes makes it afresh).');
    throw notFound('This account has no Tasks list; that should not happen, contact the operator.');
  }
  if (!isUuid(listId)) return { row: await listByName(trx, ownerId, listId), version: null };
  const found = await live({ id: listId, owner_id: ownerId });
  if (!found) throw notFound(`No list ${listId} in your workspace; list_lists shows the lists you have.`);
  return found;
}

/**
 * Lists read lately for a page of their items, per database handle, by owner and by the id,
 * `tasks` or `notes` they were asked by. A statement that reads the page also reads the list's
 * current version (listVersionColumn), in its own snapshot, so a remembered list serves only
 * while no process has changed it: a rename, a property added, the trash all make the next
 * page read the list again (`tasks` and `notes` too: another list becomes one of them only when
 * this one is trashed or changed). A list asked by name is not remembered: another list can
 * take that name without this one changing. At most 2,000 lists, each for ten minutes (far
 * inside the four billion transactions before an xmin comes round).
 */
const remembered = new WeakMap<Knex, LRUCache<string, VersionedList>>();

function memoryOf(db: Knex): LRUCache<string, VersionedList> {
  let memory = remembered.get(db);
  if (!memory) remembered.set(db, (memory = new LRUCache<string, VersionedList>({ max: 2000, ttl: 10 * 60_000 })));
  return memory;
}

/** How a list asked by `listId` is remembered: its id, `tasks` or `notes`; null for a name. */
function memoryKey(ownerId: string, listId: string): string | null {
  const word = listId.trim().toLowerCase();
  if (word === 'tasks' || word === 'notes') return `${ownerId}:${word}`;
  return isUuid(listId) ? `${ownerId}:${listId}` : null;
}

/** The list asked by `listId` as this process last read it, if it has; check its version before trusting it. */
function rememberedList(db: Knex, ownerId: string, listId: string): VersionedList | undefined {
  const key = memoryKey(ownerId, listId);
  return key === null ? undefined : remembered.get(db)?.get(key);
}

/** resolveList with the row's version; a list asked by id, `tasks` or `notes` is remembered for the next page. */
async function readList(db: Knex, ownerId: string, listId: string): Promise<VersionedList> {
  const read = await findList(db, ownerId, listId);
  const key = memoryKey(ownerId, listId);
  if (key !== null && read.version !== null) memoryOf(db).set(key, read);
  return read;
}

/**
 * Runs `read` over the list asked by `listId` as it is now, in as few statements as it can: a
 * list this process remembers is passed with `versionOf` (its owner), and `read`'s statements
 * then also read the list's current version (listVersionColumn) and answer it as
 * `listVersion`. The answer stands when that version is the remembered one; when nothing
 * carried it (an empty page), the list is read to compare; otherwise, or when `read` refused
 * the remembered list (it may have gained the property asked for), the list is read and `read`
 * runs again on it.
 */
export async function withCurrentList<T extends { listVersion?: string | null }>(
  db: Knex,
  ownerId: string,
  listId: string,
  read: (list: ListRow, versionOf?: string) => Promise<T>,
): Promise<{ list: ListRow; result: T }> {
  // A list outside the connection's grant is never served from memory: findList refuses it.
  const remembered = rememberedList(db, ownerId, listId);
  const known = remembered && inReach(remembered.row.id) ? remembered : undefined;
  let current: VersionedList | undefined;
  if (known) {
    try {
      const result = await read(known.row, ownerId);
      if (result.listVersion === known.version) return { list: known.row, result };
      if (result.listVersion === undefined) {
        current = await readList(db, ownerId, listId);
        if (current.version === known.version) return { list: current.row, result };
      }
    } catch {
      // Read the list as it is and run again: the same refusal then comes from the list as it is.
    }
  }
  current ??= await readList(db, ownerId, listId);
  return { list: current.row, result: await read(current.row) };
}

/** A column for a statement on items: the list's version now, in that statement's snapshot; null once it is in the trash. */
export function listVersionColumn(db: Knex, ownerId: string, listId: string): Knex.Raw {
  return db.raw('(SELECT xmin::text FROM lists WHERE id = ? AND owner_id = ? AND deleted_at IS NULL) AS list_version', [listId, ownerId]);
}

/**
 * The lists a changes feed reads: the one asked for, also while it is in the trash (its items
 * then come as tombstones: a client syncing by the feed learns they went with the list), or
 * the Tasks set, trashed task lists included for the same reason.
 */
export async function listsForFeed(trx: Knex, ownerId: string, listId: string | undefined): Promise<ListRow[]> {
  if (listId === undefined) return reachable((await trx('lists').where({ owner_id: ownerId })) as ListRow[], (l) => l.id).filter(keepsTasks);
  try {
    return [await resolveList(trx, ownerId, listId)];
  } catch (err) {
    if (!isUuid(listId)) throw err;
    const trashed = (await trx('lists').where({ id: listId, owner_id: ownerId }).whereNotNull('deleted_at').first()) as ListRow | undefined;
    if (!trashed || !inReach(trashed.id)) throw err;
    return [trashed];
  }
}

/** A live list of the owner by its name, compared without case; none or several answer a refusal naming the candidates. */
async function listByName(trx: Knex, ownerId: string, name: string): Promise<ListRow> {
  const live = (await trx('lists').where({ owner_id: ownerId }).whereNull('deleted_at').orderBy('created_at')) as ListRow[];
  const wanted = name.trim().toLowerCase();
  const matches = live.filter((l) => l.name.trim().toLowerCase() === wanted);
  if (matches.length === 1) return matches[0]!;
  const describe = (lists: ListRow[]) =>
    lists
      .slice(0, 20)
      .map((l) => `'${l.name}' (${l.id})`)
      .join(', ') + (lists.length > 20 ? `, and ${lists.length - 20} more (list_lists shows all)` : '');
  if (matches.length > 1) throw toolError(`${matches.length} lists are named '${name}': ${describe(matches)}; pass the id of the one you mean.`);
  throw notFound(`No list '${name}' in your workspace; pass a list id, a list's name, or 'tasks' or 'notes'. Your lists: ${describe(live)}.`);
}

/** Open items per list: live, not archived, not a repeating template, not completed where a status is kept. */
export async function openItemCounts(trx: Knex, listIds: string[]): Promise<Map<string, number>> {
  if (listIds.length === 0) return new Map();
  const rows = (await trx('items as i')
    .join('lists as l', 'l.id', 'i.list_id')
    .whereIn('i.list_id', listIds)
    .whereNull('i.deleted_at')
    .whereNull('i.archived_at')
    .where('i.is_template', false)
    .whereRaw(`NOT (i.task_status IS NOT DISTINCT FROM 'completed' AND l.properties @> '[{"id":"status"}]'::jsonb)`)
    .groupBy('i.list_id')
    .select('i.list_id')
    .count({ n: '*' })) as { list_id: string; n: number }[];
  return new Map(rows.map((r) => [r.list_id, Number(r.n)]));
}

/** A property as the API shows it; `suppressOptions` replaces options with their count. */
export function propertyDto(p: Property, suppressOptions = false): ListDto['properties'][number] {
  if (!p.options) return { id: p.id, name: p.name, type: p.type };
  return suppressOptions
    ? { id: p.id, name: p.name, type: p.type, optionCount: p.options.length }
    : { id: p.id, name: p.name, type: p.type, options: p.options };
}

/** The List shape of the API. */
export function listDto(row: ListRow, itemCount: number, suppressOptions = false): ListDto {
  return {
    id: row.id,
    name: row.name,
    icon: row.icon,
    instructions: row.instructions,
    titleLabel: row.title_label,
    layout: row.layout,
    role: roleOf(row),
    properties: row.properties.map((p) => propertyDto(p, suppressOptions)),
    statusPropertyId: keepsStatus(row) ? 'status' : null,
    dueDatePropertyId: keepsDueDate(row) ? 'dueDate' : null,
    itemCount,
    isLifeAdmin: row.system_role === 'life_admin',
  };
}

/** Every live list of the owner, hub lists first, then by creation. */
export async function liveLists(trx: Knex, ownerId: string): Promise<ListRow[]> {
  return reachable(
    (await trx('lists')
      .where({ owner_id: ownerId })
      .whereNull('deleted_at')
      .orderByRaw(`CASE system_role WHEN 'tasks' THEN 0 WHEN 'notes' THEN 1 WHEN 'life_admin' THEN 2 ELSE 3 END`)
      .orderBy('created_at')) as ListRow[],
    (l) => l.id,
  );
}

/** The owner's live lists that keep status and due date: the Tasks set. */
export async function taskLists(trx: Knex, ownerId: string): Promise<ListRow[]> {
  return reachable((await trx('lists').where({ owner_id: ownerId }).whereNull('deleted_at')) as ListRow[], (l) => l.id).filter(keepsTasks);
}

/**
 * Makes a list. `template: tasks` gives the task columns and ignores `properties`; a list with
 * no properties is a notes list and reads best as a list, the others as a table.
 */
export async function createList(trx: Knex, principal: Principal, input: OpInput<'create_list'>): Promise<ListRow> {
  const titleLabel = blankToNull(input.titleLabel);
  const properties = input.template === 'tasks' ? taskColumns() : buildProperties(input.properties ?? [], [], 'properties', titleLabel);
  const [row] = (await trx('lists')
    .insert({
      owner_id: principal.userId,
      name: input.name.trim() || input.name,
      icon: blankToNull(input.icon),
      instructions: blankToNull(input.instructions),
      title_label: titleLabel,
      layout: input.template === 'tasks' || properties.length === 0 ? 'list' : 'table',
      properties: JSON.stringify(properties),
    })
    .returning('*')) as ListRow[];
  await recordActivity(trx, principal, { action: 'list.created', summary: `Created list '${row!.name}'`, listId: row!.id });
  return row!;
}

function blankToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value.trim() === '' ? null : value;
}
