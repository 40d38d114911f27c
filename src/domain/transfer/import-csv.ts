/**
 * Reading a CSV file into an import plan: each column mapped as the caller says, or guessed
 * from its header (title, body, due date, status, externalId, a property of the list) and for
 * a new property its type from its values.
 */
import { DUE_DATE_ID, isReserved, STATUS_ID, type PropertyType } from '../lists/properties.js';
import { isIsoDate } from '../lists/values.js';
import type { TaskStatus } from '../items/row-types.js';
import { MAX_PROPERTIES } from '../lists/change.js';
import { fromCsvCell } from './csv-cells.js';
import {
  dueFromText,
  quoteCell,
  readCsv,
  refuse,
  Warnings,
  type ColumnTarget,
  type ExistingList,
  type ImportInput,
  type ImportPlan,
  type PlanItem,
  type PlanList,
  type PlanProperty,
} from './import-plan.js';

const TITLE_HEADERS = ['title', 'name', 'task', 'content', 'subject', 'item'];
const BODY_HEADERS = ['body', 'description', 'notes', 'note', 'details'];
const DUE_HEADERS = ['due', 'due date', 'duedate', 'dueat', 'due at', 'deadline'];
const STATUS_HEADERS = ['status', 'taskstatus', 'task status', 'state', 'done', 'completed', 'complete'];
const EXTERNAL_HEADERS = ['externalid', 'external id'];
const SKIPPED_HEADERS = ['createdat', 'updatedat', 'created at', 'updated at'];

/** The target of a column the caller did not map: by its header, then the list's properties. */
function guessTarget(header: string, headers: string[], taken: Set<ColumnTarget>, existing: ExistingList | undefined): ColumnTarget {
  const h = header.toLowerCase();
  const once = (target: ColumnTarget, names: string[]) => !taken.has(target) && names.includes(h);
  const titleNames = existing?.titleLabel ? [...TITLE_HEADERS, existing.titleLabel.toLowerCase()] : TITLE_HEADERS;
  if (once('title', titleNames)) return 'title';
  if (once('body', BODY_HEADERS)) return 'body';
  if (existing?.properties.some((p) => !isReserved(p.id) && p.name.toLowerCase() === h)) return 'property';
  const dueName = existing?.properties.find((p) => p.id === DUE_DATE_ID)?.name.toLowerCase();
  const statusName = existing?.properties.find((p) => p.id === STATUS_ID)?.name.toLowerCase();
  if (once('dueAt', dueName ? [...DUE_HEADERS, dueName] : DUE_HEADERS)) return 'dueAt';
  if (once('taskStatus', statusName ? [...STATUS_HEADERS, statusName] : STATUS_HEADERS)) return 'taskStatus';
  if (once('externalId', EXTERNAL_HEADERS)) return 'externalId';
  // The id column of a listkeeper CSV names the item it came from: its externalId when the file has none.
  if (h === 'id') return headers.some((o) => EXTERNAL_HEADERS.includes(o.toLowerCase())) ? 'skip' : 'externalId';
  if (SKIPPED_HEADERS.includes(h)) return 'skip';
  return 'property';
}

/** The type a new property gets from a column's values. */
export function guessType(values: string[]): Exclude<PropertyType, 'status'> {
  const filled = values.map((v) => v.trim()).filter((v) => v !== '');
  if (filled.length === 0) return 'text';
  const all = (test: (v: string) => boolean) => filled.every(test);
  if (all((v) => /^-?\d{1,3}(,\d{3})*(\.\d+)?$|^-?\d+(\.\d+)?$/.test(v))) return 'number';
  if (all((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && isIsoDate(v))) return 'date';
  if (all((v) => ['true', 'false', 'yes', 'no', 'x', 'checked', 'unchecked'].includes(v.toLowerCase()))) return 'checkbox';
  if (all((v) => /^https?:\/\/\S+$/i.test(v))) return 'url';
  if (all((v) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v))) return 'email';
  // A list's CSV writes a multiSelect value as its labels joined by ', ' (valueText): a column of
  // values so joined, whose labels repeat as a select's would, is a multiSelect.
  if (filled.some((v) => v.includes(', ')) && all((v) => /^[^,]+(, [^,]+)*$/.test(v))) {
    const labels = filled.flatMap((v) => v.split(', ').map((l) => l.trim().toLowerCase()));
    const distinctLabels = new Set(labels);
    if (distinctLabels.size <= 20 && labels.length >= 2 * distinctLabels.size && labels.every((l) => l.length <= 100)) return 'multiSelect';
  }
  const distinct = new Set(filled.map((v) => v.toLowerCase()));
  if (distinct.size <= 12 && filled.length >= 2 * distinct.size && filled.every((v) => v.length <= 100)) return 'select';
  return 'text';
}

/** Status words as people write them: ids, the default labels, and done/yes/x. */
export function statusFromText(text: string, labels: Partial<Record<TaskStatus, string>> = {}): TaskStatus | null {
  const t = text.trim().toLowerCase();
  if (!t) return null;
  for (const [id, label] of Object.entries(labels)) if (label?.toLowerCase() === t) return id as TaskStatus;
  if (['todo', 'to do', 'open', 'not started', 'new', 'false', 'no'].includes(t)) return 'todo';
  if (['inprogress', 'in progress', 'doing', 'started', 'active'].includes(t)) return 'inProgress';
  if (['completed', 'complete', 'done', 'finished', 'closed', 'true', 'yes', 'x'].includes(t)) return 'completed';
  return null;
}

export function planCsv(
  text: string,
  columns: NonNullable<ImportInput['columns']>,
  listName: string,
  context: { timeZone: string; now: Date; existing?: ExistingList },
): ImportPlan {
  const read = readCsv(text);
  // Cells the export wrote with a quote before a formula's first character are read as they were.
  const header = read.header.map(fromCsvCell);
  const rows = read.rows.map((row) => row.map(fromCsvCell));
  const warnings = new Warnings();
  const { existing } = context;
  checkColumns(columns, header);
  const given = new Map(columns.map((c) => [c.column, c]));
  const taken = new Set<ColumnTarget>(columns.map((c) => c.to).filter((t) => t !== 'property' && t !== 'skip'));
  for (const target of ['title', 'body', 'dueAt', 'taskStatus', 'externalId'] as const)
    if (columns.filter((c) => c.to === target).length > 1) throw refuse(`Only one column can be read as ${target}.`, 'columns');

  const mapped = header.map((column, index) => {
    const samples = rows.map((r) => r[index]!);
    const c = given.get(column);
    const to = c?.to ?? guessTarget(column, header, taken, existing);
    if (!c && to !== 'property' && to !== 'skip') taken.add(to);
    let property: PlanProperty | null = null;
    if (to === 'property') {
      const name = (c?.property ?? column).trim();
      const found = existing?.properties.find((p) => p.id === name) ?? existing?.properties.find((p) => p.name.toLowerCase() === name.toLowerCase());
      if (found && isReserved(found.id))
        throw refuse(
          `'${name}' is the list's ${found.id === STATUS_ID ? 'status' : 'due date'} column: map the column to ${found.id === STATUS_ID ? 'taskStatus' : 'dueAt'} instead.`,
          'columns',
        );
      if (found && c?.type && c.type !== found.type)
        throw refuse(`'${found.name}' is a ${found.type} property of the list; a column cannot make it a ${c.type}.`, 'columns');
      property = found ? { key: found.name, name: found.name, type: found.type } : { key: name, name, type: c?.type ?? guessType(samples) };
    }
    return { column, index, to, property, samples };
  });
  // No header says title: the first column guessed as text is the title (a listkeeper CSV names it by the list's title label).
  if (!mapped.some((m) => m.to === 'title')) {
    const first = mapped.find(
      (m) => !given.has(m.column) && m.to === 'property' && m.property?.type === 'text' && !existing?.properties.some((p) => p.name === m.property!.name),
    );
    if (first) Object.assign(first, { to: 'title', property: null });
  }
  // A listkeeper CSV has both: the id stands in for an empty externalId, so importing it again merges.
  const idColumn = mapped.find((m) => m.column.toLowerCase() === 'id' && m.to === 'skip' && !given.has(m.column) && mapped.some((o) => o.to === 'externalId'));
  if (!mapped.some((m) => m.to === 'title') && !mapped.some((m) => m.to === 'property'))
    throw refuse('No column is read as the title or a property, so every item would be empty; map at least one column.', 'columns');
  const keys = new Set<string>();
  for (const m of mapped)
    if (m.property) {
      if (keys.has(m.property.key.toLowerCase()))
        throw refuse(`Two columns map to the property '${m.property.name}'; map one of them elsewhere or skip it.`, 'columns');
      keys.add(m.property.key.toLowerCase());
    }

  const tasks = mapped.some((m) => m.to === 'dueAt' || m.to === 'taskStatus');
  const keepsTasks = existing ? existing.properties.some((p) => p.id === STATUS_ID) && existing.properties.some((p) => p.id === DUE_DATE_ID) : tasks;
  if (tasks && !keepsTasks)
    throw refuse(
      `'${existing!.name}' keeps no status and due date, and the file has a due date or status column: skip it, map it to a property, or import into a list with task columns.`,
      'columns',
    );
  const existingNames = new Set(existing?.properties.map((p) => p.name));
  const newColumns = mapped.filter((m) => m.property && !existingNames.has(m.property.name));
  if ((existing?.properties.length ?? 0) + newColumns.length > MAX_PROPERTIES)
    throw refuse(
      `The CSV would give ${existing ? `'${existing.name}'` : 'the new list'} ${(existing?.properties.length ?? 0) + newColumns.length} properties; a list holds at most ${MAX_PROPERTIES}: skip some columns (to: skip) or map them to the list's properties.`,
      'columns',
    );
  for (const column of newColumns) fillOptions(column);

  const items = rows.map((row, r) => rowItem(row, r, mapped, idColumn, warnings, context));
  const list: PlanList = {
    name: existing?.name ?? listName,
    target: existing ? { kind: 'existing', listId: existing.id } : { kind: 'new' },
    icon: null,
    instructions: null,
    titleLabel: null,
    layout: null,
    taskColumns: tasks ? { status: 'Status', dueDate: 'Due date' } : null,
    properties: mapped.flatMap((m) => (m.property ? [m.property] : [])),
    items,
  };
  return {
    format: 'csv',
    lists: [list],
    warnings: warnings.done(),
    columns: mapped.map((m) => ({
      column: m.column,
      to: m.to,
      property: m.property?.name ?? null,
      type: m.property?.type ?? null,
      samples: [...new Set(m.samples.filter((s) => s.trim() !== ''))].slice(0, 3),
    })),
  };
}

type Mapped = { column: string; index: number; to: ColumnTarget; property: PlanProperty | null; samples: string[] };

/** Refuses a mapping that names a column the file lacks, or gives property and type to a column that is not a property. */
function checkColumns(columns: NonNullable<ImportInput['columns']>, header: string[]): void {
  for (const [i, c] of columns.entries()) {
    if (!header.includes(c.column))
      throw refuse(`columns[${i}] names the column '${c.column}', which the file does not have; its columns: ${header.join(', ')}.`, `columns[${i}].column`);
    if (c.to !== 'property' && (c.property !== undefined || c.type !== undefined))
      throw refuse(`columns[${i}]: 'property' and 'type' go with to: property only.`, `columns[${i}]`);
  }
}

/** A new choice property's options: the distinct values of its column (each part of a multiSelect's). */
function fillOptions(column: Mapped): void {
  const p = column.property!;
  if (p.type === 'select' || p.type === 'multiSelect') {
    const labels = new Set<string>();
    for (const v of column.samples) for (const part of p.type === 'multiSelect' ? v.split(',') : [v]) if (part.trim()) labels.add(part.trim());
    p.options = [...labels].map((label) => ({ label }));
  }
}

/** One row of the file as an item: its cells by their mapping; a status or date that cannot be read is a warning. */
function rowItem(
  row: string[],
  r: number,
  mapped: Mapped[],
  idColumn: Mapped | undefined,
  warnings: Warnings,
  context: { timeZone: string; now: Date },
): PlanItem {
  const item: PlanItem = {
    externalId: null,
    title: null,
    body: null,
    taskStatus: null,
    due: null,
    completedAt: null,
    archivedAt: null,
    favorited: false,
    assignedAgent: null,
    recurrence: null,
    labels: [],
    reminderAt: null,
    values: {},
    createdAt: null,
    chat: [],
    attachments: [],
  };
  if (idColumn && row[idColumn.index]!.trim()) item.externalId = row[idColumn.index]!.trim();
  for (const m of mapped) {
    const cell = row[m.index]!;
    if (cell.trim() === '') continue;
    switch (m.to) {
      case 'title':
        item.title = cell;
        break;
      case 'body':
        item.body = cell;
        break;
      case 'externalId':
        item.externalId = cell.trim();
        break;
      case 'taskStatus': {
        const status = statusFromText(cell);
        if (status) item.taskStatus = status;
        else
          warnings.add(`Row ${r + 2}: status '${quoteCell(cell)}' is not one of todo, inProgress, completed (or To do, In progress, Done); the task is open.`);
        break;
      }
      case 'dueAt': {
        const due = dueFromText(cell, context.timeZone, context.now);
        if (due) item.due = due;
        else warnings.add(`Row ${r + 2}: '${quoteCell(cell)}' is not a date; the task has no due date.`);
        break;
      }
      case 'property':
        item.values[m.property!.key] = cell;
        break;
      case 'skip':
        break;
    }
  }
  return item;
}
