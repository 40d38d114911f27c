/**
 * query_items' `where` clauses and `sort`, compiled to SQL over the items table. Property
 * values live in the `values` jsonb keyed by property id; every value is bound, never
 * spliced into the SQL text.
 * @see openapi/openapi.yaml components/schemas/WhereClause
 */
import type { Knex } from 'knex';
import { findProperty, propertyNames, type Property } from '../lists/properties.js';
import { isEmptyValue, resolveValues, ValueError } from '../lists/values.js';
import { parseDueAt, TASK_STATUSES } from '../items/items.js';
import { canonicalInstant, parseIsoInstant } from '../time.js';
import { toolError } from '../../core/errors.js';

export type WhereOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'contains' | 'in' | 'isEmpty' | 'isNotEmpty';
export interface WhereClause {
  property: string;
  op: WhereOp;
  value?: unknown;
}

type Kind = 'text' | 'number' | 'date' | 'bool' | 'option' | 'options' | 'status';

interface Target {
  label: string;
  kind: Kind;
  sql: string;
  property?: Property;
}

const ORDERED: WhereOp[] = ['lt', 'lte', 'gt', 'gte'];
const SQL_OP: Record<string, string> = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' };

/** What a clause or sort key names: title, the task columns, or one of the list's properties. */
export function target(properties: Property[], key: string, keepsTasks: { status: boolean; due: boolean }): Target {
  const lower = key.trim().toLowerCase();
  if (lower === 'title') return { label: 'title', kind: 'text', sql: 'title' };
  if (lower === 'createdat') return { label: 'createdAt', kind: 'date', sql: 'created_at' };
  if (lower === 'updatedat') return { label: 'updatedAt', kind: 'date', sql: 'updated_at' };
  const property = findProperty(properties, key);
  if (!property) throw toolError(`Unknown property '${key}'; valid: title, ${propertyNames(properties)}.`);
  if (property.id === 'status' && keepsTasks.status) return { label: property.name, kind: 'status', sql: `coalesce(task_status, 'todo')`, property };
  if (property.id === 'dueDate' && keepsTasks.due) return { label: property.name, kind: 'date', sql: 'due_at', property };
  const ref = `("values"->>'${property.id.replace(/'/g, "''")}')`;
  switch (property.type) {
    case 'number':
      return {
        label: property.name,
        kind: 'number',
        sql: `(CASE WHEN jsonb_typeof("values"->'${property.id}') = 'number' THEN (${ref})::numeric END)`,
        property,
      };
    case 'checkbox':
      return {
        label: property.name,
        kind: 'bool',
        sql: `(CASE WHEN jsonb_typeof("values"->'${property.id}') = 'boolean' THEN (${ref})::boolean END)`,
        property,
      };
    case 'date':
      // Only text Postgres reads as a date is compared (years 1 to 9999; a value stored in another
      // form, as year 0000, counts as none), so one odd value cannot fail every query on the list.
      return { label: property.name, kind: 'date', sql: `(CASE WHEN ${ref} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}' AND ${ref} !~ '^0000' THEN ${ref} END)`, property };
    case 'select':
      return { label: property.name, kind: 'option', sql: ref, property };
    case 'multiSelect':
      return { label: property.name, kind: 'options', sql: `"values"->'${property.id}'`, property };
    default:
      return { label: property.name, kind: 'text', sql: ref, property };
  }
}

/** Adds the clauses to the query, AND-combined. Throws toolError with a sentence on a clause that cannot apply. */
export function applyWhere(
  q: Knex.QueryBuilder,
  clauses: WhereClause[],
  properties: Property[],
  keeps: { status: boolean; due: boolean; timeZone?: string },
): void {
  clauses.forEach((clause, index) => {
    const t = target(properties, clause.property, keeps);
    const where = `where[${index}]`;
    if (clause.op === 'isEmpty' || clause.op === 'isNotEmpty') {
      const empty =
        t.kind === 'options'
          ? `(${t.sql} IS NULL OR ${t.sql} = '[]'::jsonb)`
          : t.kind === 'text' || t.kind === 'option'
            ? `(${t.sql} IS NULL OR ${t.sql} = '')`
            : `(${t.sql} IS NULL)`;
      q.whereRaw(clause.op === 'isEmpty' ? empty : `NOT ${empty}`);
      return;
    }
    if (isEmptyValue(clause.value)) throw toolError(`${where}: op '${clause.op}' on '${t.label}' needs a value; to find items without one, use isEmpty.`);
    // One value to compare with; several only for `in` (any of them) and a multiSelect (a set of options).
    if (Array.isArray(clause.value) && clause.op !== 'in' && t.kind !== 'options' && t.kind !== 'option') {
      throw toolError(`${where}: '${t.label}' compares with one value, not a list; to match any of several, use op in.`);
    }
    if (ORDERED.includes(clause.op) && !['number', 'date', 'text'].includes(t.kind)) {
      throw toolError(
        `${where}: '${t.label}' is a ${t.property?.type ?? t.kind} and cannot be compared with ${clause.op}; use eq, ne, in, isEmpty or isNotEmpty.`,
      );
    }
    if (clause.op === 'in') {
      const values = Array.isArray(clause.value) ? clause.value : [clause.value];
      const bound = values.map((v) => bind(t, v, where, keeps.timeZone));
      if (t.kind === 'options') q.whereRaw(`${t.sql} \\?| ?::text[]`, [bound.flat() as unknown as string]);
      else q.whereRaw(`${t.sql}${t.kind === 'date' ? '::timestamptz' : ''} = ANY(?::${ARRAY_CAST[t.kind]}[])`, [bound as unknown as string]);
      return;
    }
    if (clause.op === 'contains') {
      if (t.kind === 'options') {
        q.whereRaw(`${t.sql} @> ?::jsonb`, [JSON.stringify([bind(t, clause.value, where, keeps.timeZone)].flat())]);
      } else if (t.kind === 'text') {
        q.whereRaw(`${t.sql} ILIKE ?`, [`%${String(clause.value).replace(/[\\%_]/g, (c) => `\\${c}`)}%`]);
      } else throw toolError(`${where}: contains applies to text and multiSelect properties; '${t.label}' is a ${t.property?.type ?? t.kind}.`);
      return;
    }
    const value = bind(t, clause.value, where, keeps.timeZone);
    if (t.kind === 'options') {
      const set = JSON.stringify([value].flat());
      q.whereRaw(
        clause.op === 'eq'
          ? `(${t.sql} @> ?::jsonb AND ${t.sql} <@ ?::jsonb)`
          : `NOT (coalesce(${t.sql}, '[]'::jsonb) @> ?::jsonb AND coalesce(${t.sql}, '[]'::jsonb) <@ ?::jsonb)`,
        [set, set],
      );
      return;
    }
    const cast = t.kind === 'date' ? '::timestamptz' : '';
    if (clause.op === 'ne') q.whereRaw(`${t.sql}${cast} IS DISTINCT FROM ?${cast}`, [value]);
    else q.whereRaw(`${t.sql}${cast} ${SQL_OP[clause.op]} ?${cast}`, [value]);
    if (clause.op === 'eq' && t.kind === 'option' && t.property && typeof value === 'string') q.whereRaw(...containment(t.property.id, value));
  });
}

/**
 * The same test as `values->>property = option`, in the form the GIN index on `values`
 * serves (migration 20261125000900): a select property's value is its option's id, a JSON
 * string, so the two agree on every row; the index then finds the rows with that option.
 */
function containment(propertyId: string, optionId: string): [string, string[]] {
  return ['"values" @> ?::jsonb', [JSON.stringify({ [propertyId]: optionId })]];
}

/** Whether binding `clauses` reads the person's time zone: only a comparison with the due date does. Clauses that name no property read none (they are refused later). */
export function readsTimeZone(clauses: WhereClause[], properties: Property[], keeps: { status: boolean; due: boolean }): boolean {
  return clauses.some((clause) => {
    try {
      return target(properties, clause.property, keeps).sql === 'due_at';
    } catch {
      return false;
    }
  });
}

/** A clause value in the stored form: option labels become ids, numbers numbers, and so on. */
export function bind(t: Target, value: unknown, where: string, timeZone = 'UTC'): string | number | boolean | string[] | Date {
  try {
    if (isEmptyValue(value)) throw new ValueError(`'${t.label}' got an empty value, which matches nothing; to find items without one, use isEmpty.`);
    switch (t.kind) {
      case 'status': {
        const status = t.property!.options!.find((o) => o.id === value || o.label.toLowerCase() === String(value).toLowerCase());
        if (!status) throw new ValueError(`'${t.label}' takes ${TASK_STATUSES.join(', ')}; received ${JSON.stringify(value)}.`);
        return status.id;
      }
      case 'option': {
        const ids = optionIds(t, value);
        if (ids.length !== 1) throw new ValueError(`'${t.label}' is a select; compare it with one option.`);
        return ids[0]!;
      }
      case 'options':
        return optionIds(t, value);
      case 'number':
      case 'bool':
        return resolveValues([t.property!], [{ property: t.property!.id, value }]).set[t.property!.id] as number | boolean;
      case 'date': {
        // The reserved due date is a column, not a value: read it as the due dates of items are (a date alone is
        // the start of that day in the person's time zone), bound as a Date, which the driver writes for any year.
        if (t.sql === 'due_at') {
          const due = typeof value === 'string' ? parseDueAt(value, timeZone) : null;
          if (!due) throw new ValueError(`'${t.label}' compares with an ISO 8601 date or date-time; received ${JSON.stringify(value)}.`);
          return due.dueAt;
        }
        const at = typeof value === 'string' ? comparableDate(value) : null;
        if (!at) throw new ValueError(`'${t.label}' compares with an ISO 8601 date or date-time in the years 1 to 9999; received ${JSON.stringify(value)}.`);
        return at;
      }
      default:
        return String(value);
    }
  } catch (err) {
    if (err instanceof ValueError) throw toolError(`${where}: ${err.message}`);
    throw err;
  }
}

const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * A clause's date (a date property, createdAt, updatedAt) as Postgres reads it: a date alone
 * stays a date, read in the session's zone as a stored date alone is; a date-time becomes UTC,
 * its fraction kept to the microsecond. Null for anything else and outside the years 1 to
 * 9999, where Postgres reads no such text and no stored date lies.
 */
function comparableDate(text: string): string | null {
  const at = parseIsoInstant(text);
  if (!at || at.getTime() < FIRST_INSTANT || at.getTime() > LAST_INSTANT) return null;
  const day = text.trim();
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? day : canonicalInstant(text);
}

function optionIds(t: Target, value: unknown): string[] {
  const labels = Array.isArray(value) ? value : [value];
  return labels.map((label) => {
    const option = t.property!.options?.find((o) => o.id === label || o.label.toLowerCase() === String(label).toLowerCase());
    if (!option)
      throw new ValueError(`'${t.label}' has no option ${JSON.stringify(label)}; options: ${(t.property!.options ?? []).map((o) => o.label).join(', ')}.`);
    return option.id;
  });
}

const ARRAY_CAST: Record<Kind, string> = {
  text: 'text',
  option: 'text',
  status: 'text',
  number: 'numeric',
  bool: 'boolean',
  date: 'timestamptz',
  options: 'text',
};

/** ORDER BY for a sort key; omitted, newest first. */
export function applySort(
  q: Knex.QueryBuilder,
  sort: { property: string; direction?: 'asc' | 'desc' } | null | undefined,
  properties: Property[],
  keeps: { status: boolean; due: boolean },
): void {
  if (!sort) {
    q.orderByRaw('created_at DESC, created_seq DESC');
    return;
  }
  const t = target(properties, sort.property, keeps);
  const dir = sort.direction === 'desc' ? 'DESC' : 'ASC';
  const expr = t.kind === 'options' ? `(${t.sql})::text` : t.kind === 'date' && t.property && t.sql !== 'due_at' ? `(${t.sql})::timestamptz` : t.sql;
  q.orderByRaw(`${expr} ${dir} NULLS LAST, created_at DESC, created_seq DESC`);
}
