/**
 * The plan of an import: what a listkeeper export document (import-document.ts), a CSV file
 * with a column mapping (import-csv.ts) or a Todoist project CSV (import-todoist.ts) becomes
 * before anything is written: lists, the properties they need, the items with their values by
 * property key. The plan is what preview_import shows and what the import job writes
 * (import-run.ts); imports.ts starts and follows imports. Here: the plan's shapes and what
 * the readers share.
 * @see openapi/openapi.yaml create_import, preview_import; docs/export.md
 */
import { parse } from 'csv-parse/sync';
import { ApiError } from '../../core/errors.js';
import type { OpInput } from '../../core/context.js';
import { parseDue } from '../items/due-words.js';
import { MAX_PROPERTIES } from '../lists/change.js';
import type { Property, PropertyType } from '../lists/properties.js';
import { isIsoDate } from '../lists/values.js';
import { parseIsoInstant } from '../time.js';
import type { SystemRole } from '../lists/lists.js';
import type { TaskStatus } from '../items/row-types.js';

export type ImportFormat = 'listkeeper' | 'csv' | 'todoist';
export type ImportInput = OpInput<'create_import'>;
export type ColumnTarget = 'title' | 'body' | 'dueAt' | 'taskStatus' | 'externalId' | 'property' | 'skip';

/** A property an imported list needs: `key` is how the plan's items name it (the export's id, or a CSV column's property name). */
export interface PlanProperty {
  key: string;
  name: string;
  type: PropertyType;
  /** The id to keep on a new list (the export's), when it is free. */
  id?: string;
  options?: { id?: string; label: string; color?: string | null }[];
}

export interface PlanMessage {
  authorKind: 'person' | 'service' | 'agent';
  authorName: string;
  text: string;
  needsInput: boolean;
  createdAt: string | null;
}

export interface PlanItem {
  externalId: string | null;
  title: string | null;
  body: string | null;
  taskStatus: TaskStatus | null;
  /** An instant, or a local date (YYYY-MM-DD) in the person's time zone. */
  due: { at: string } | { date: string } | null;
  completedAt: string | null;
  archivedAt: string | null;
  favorited: boolean;
  assignedAgent: string | null;
  /** The RRULE it repeats by. */
  recurrence: string | null;
  reminderAt: string | null;
  /** The item's id in the file, and its parent's (subtasks are linked once the list is written). */
  key?: string;
  parentKey?: string | null;
  labels: string[];
  /** By PlanProperty key; select options by label. */
  values: Record<string, unknown>;
  createdAt: string | null;
  chat: PlanMessage[];
  attachments: { bucketPath: string; mimeType: string; url: string }[];
}

export type PlanTarget = { kind: 'hub'; role: SystemRole } | { kind: 'sameName' } | { kind: 'existing'; listId: string } | { kind: 'new' };

export interface PlanList {
  name: string;
  target: PlanTarget;
  icon: string | null;
  instructions: string | null;
  titleLabel: string | null;
  layout: 'list' | 'kanban' | 'table' | null;
  /** The list keeps status and due date (the task columns), with these names. */
  taskColumns: { status: string; dueDate: string; statusLabels?: Partial<Record<TaskStatus, string>> } | null;
  properties: PlanProperty[];
  items: PlanItem[];
}

export interface ImportPlan {
  format: ImportFormat;
  lists: PlanList[];
  warnings: string[];
  /** For CSV: each column and how it is read. */
  columns: { column: string; to: ColumnTarget; property: string | null; type: string | null; samples: string[] }[];
}

/** Warnings kept on an import: the first ones, and a count of the rest. */
export const MAX_WARNINGS = 100;

/** A well-formed import the workspace or the file cannot take (409), naming the field at fault. */
export const refuse = (message: string, field: string) => new ApiError('toolError', message, { field });

export class Warnings {
  readonly list: string[] = [];
  private dropped = 0;
  add(text: string): void {
    if (this.list.length < MAX_WARNINGS - 1) this.list.push(text);
    else this.dropped++;
  }
  done(): string[] {
    return this.dropped ? [...this.list, `…and ${this.dropped} more warnings like these.`] : this.list;
  }
}

/** What the person's list looks like to the planner, for a CSV into an existing list. */
export interface ExistingList {
  id: string;
  name: string;
  titleLabel: string | null;
  properties: Property[];
}

/**
 * What a CSV may hold, from the list limits: a column for each of a list's properties and six
 * more (id, title, body, externalId, createdAt, updatedAt: the columns of a list's own CSV),
 * rows for items, and cells no longer than a body may be. Checked before the file is read
 * further: the header first, then rows and cells as they parse.
 */
export const CSV_LIMITS = { columns: MAX_PROPERTIES + 6, rows: 100_000, cell: 1_000_000 };

/** A cell's text in a sentence: its start, when it is long. */
export const quoteCell = (cell: string) => (cell.length > 64 ? `${cell.slice(0, 60)}…` : cell);

/**
 * Refuses a CSV that holds more than CSV_LIMITS, in one pass over its characters that stops at
 * the first thing over a limit: before the parser, whose cost grows with the cells it makes.
 * Quotes are RFC 4180's (a field in quotes, "" for a quote in it).
 */
function checkCsvShape(text: string, field: string): void {
  let cells = 1;
  let rows = 0;
  let cellStart = 0;
  let quoted = false;
  let blank = true;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 10;
    if (c === 34) quoted = !quoted;
    if (quoted && i < text.length) continue;
    const endsRow = c === 10 || c === 13;
    if (c !== 44 && !endsRow) {
      blank = false;
      continue;
    }
    if (i - cellStart > CSV_LIMITS.cell)
      throw refuse(`Row ${rows + 1} of the CSV has a cell longer than ${CSV_LIMITS.cell} characters, the most a cell holds.`, field);
    cellStart = i + 1;
    if (c === 44) {
      blank = false;
      if (++cells > CSV_LIMITS.columns)
        throw refuse(
          `Row ${rows + 1} of the CSV has more than ${CSV_LIMITS.columns} cells; a list holds at most ${MAX_PROPERTIES} properties, so an import reads at most ${CSV_LIMITS.columns} columns (the properties, and id, title, body, externalId, createdAt and updatedAt): remove columns or split the file.`,
          field,
        );
      continue;
    }
    if (!blank && ++rows > CSV_LIMITS.rows + 1)
      throw refuse(`The CSV has more than ${CSV_LIMITS.rows} rows, the most one import reads into a list: split the file.`, field);
    cells = 1;
    blank = true;
  }
}

/** Rows of a CSV text with a header row; a file that does not parse, or holds more than CSV_LIMITS, is a clear refusal. */
export function readCsv(text: string, field = 'csv'): { header: string[]; rows: string[][] } {
  checkCsvShape(text, field);
  let records: string[][];
  try {
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    throw refuse(`The CSV does not parse: ${(err as Error).message}`, field);
  }
  const [first, ...rows] = records;
  if (!first || first.every((h) => h.trim() === '')) throw refuse('The CSV has no header row; its first line must name the columns.', field);
  // Headers are names: blank ones are numbered, repeated ones get (2), (3), ….
  const seen = new Map<string, number>();
  const header = first.map((raw, i) => {
    const base = raw.trim() || `Column ${i + 1}`;
    const n = (seen.get(base.toLowerCase()) ?? 0) + 1;
    seen.set(base.toLowerCase(), n);
    return n === 1 ? base : `${base} (${n})`;
  });
  return { header, rows: rows.map((r) => header.map((_, i) => r[i] ?? '')) };
}

/** An ISO date or date-time (without an offset: in `timeZone`), or a date in words ("tomorrow 5pm", "Dec 3 2026"). */
export function dueFromText(text: string, timeZone: string, now: Date): PlanItem['due'] {
  const t = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t) && isIsoDate(t)) return { date: t };
  const at = parseIsoInstant(t, timeZone);
  if (at) return { at: at.toISOString() };
  const words = parseDue(t, timeZone, now);
  if (!words) return null;
  return words.hasTime ? { at: words.at.toISOString() } : { date: words.value };
}

/** The format of a file by its name and first line: JSON is an export; a CSV whose header starts TYPE,CONTENT is Todoist's. */
export function formatOfFile(fileName: string, text: string): ImportFormat {
  if (fileName.toLowerCase().endsWith('.json') || text.trimStart().startsWith('{')) return 'listkeeper';
  const header = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/, 1)[0]!
    .toUpperCase();
  return /^"?TYPE"?,"?CONTENT"?(,|$)/.test(header) ? 'todoist' : 'csv';
}
