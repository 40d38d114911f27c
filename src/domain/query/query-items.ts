/**
 * query_items on one list: the filtered items a page at a time, or their count or the sum of
 * one number property, each computed in the database (one aggregate statement), never by
 * loading rows.
 * @see openapi/openapi.yaml query_items
 */
import type { Knex } from 'knex';
import { whereLabel } from '../items/labels.js';
import type { OpInput } from '../../core/context.js';
import { toolError } from '../../core/errors.js';
import { keepsDueDate, keepsStatus, listVersionColumn, type ListRow } from '../lists/lists.js';
import { findProperty, propertyNames } from '../lists/properties.js';
import { applySort, applyWhere, readsTimeZone, type WhereClause } from './where.js';
import { aggregateValues, valueConditions } from './item-values.js';
import { readTally } from './tallies.js';
import type { ItemDbRow } from '../items/row-types.js';

type QueryInput = Omit<OpInput<'query_items'>, 'listId'>;

export interface QueryResult {
  count: number;
  sum: number | null;
  sumPropertyId: string | null;
  rows: ItemDbRow[];
  offset: number;
  hasMore: boolean;
  /** With `versionOf`, the list's version the first statement saw; undefined when no row carried it (an empty page). */
  listVersion?: string | null;
}

/**
 * Runs one query_items call over `list`. `zoneOf` answers the owner's time zone; it is asked
 * only when a clause compares the due date (a date alone is that day in their zone), so most
 * queries spare the statement.
 */
export async function queryItems(
  db: Knex,
  list: ListRow,
  input: QueryInput,
  zoneOf: () => Promise<string>,
  options: { /** The list's owner: each statement also reads the list's version (lists.ts, withCurrentList). */ versionOf?: string } = {},
): Promise<QueryResult> {
  const version = options.versionOf !== undefined ? listVersionColumn(db, options.versionOf, list.id) : null;
  const versionColumn = version ? [version] : [];
  const withVersion = (row: { list_version?: string | null } | undefined) => (version && row ? { listVersion: row.list_version ?? null } : {});
  const clauses = (input.where ?? []) as WhereClause[];
  const tasks = { status: keepsStatus(list), due: keepsDueDate(list) };
  const keeps = { ...tasks, timeZone: readsTimeZone(clauses, list.properties, tasks) ? await zoneOf() : 'UTC' };
  const base = () => {
    const q = db('items').where({ list_id: list.id }).whereNull('deleted_at').where('is_template', false);
    if (!input.includeArchived) q.whereNull('archived_at');
    if (input.label) whereLabel(q, input.label);
    if (input.createdAfter) q.where('created_at', '>=', input.createdAfter);
    if (input.createdBefore) q.where('created_at', '<', input.createdBefore);
    if (input.updatedAfter) q.where('updated_at', '>=', input.updatedAfter);
    if (input.updatedBefore) q.where('updated_at', '<', input.updatedBefore);
    applyWhere(q, clauses, list.properties, keeps);
    return q;
  };
  const none = { rows: [], offset: 0, hasMore: false };
  const mode = input.mode ?? 'list';
  // A count or sum on select and number conditions alone: one `eq` on a select reads the tallies (tallies.ts),
  // anything else of those kinds item_values' indexes (query-values.ts); null when neither can answer.
  const fromValues = async (sumPropertyId?: string) => {
    if (input.label || input.createdAfter || input.createdBefore || input.updatedAfter || input.updatedBefore) return null;
    const conditions = valueConditions(clauses, list.properties, keeps);
    if (!conditions) return null;
    const options = { includeArchived: input.includeArchived === true, sumPropertyId, also: version };
    const [only] = conditions;
    const tallied = conditions.length === 1 && only!.kind === 'option' ? await readTally(db, list.id, only!.propertyId, String(only!.value), options) : null;
    return tallied ?? (await aggregateValues(db, list.id, conditions, options));
  };
  if (mode === 'sum') {
    if (!input.sumPropertyId) throw toolError('mode sum needs sumPropertyId: the id or name of a number property.');
    const property = findProperty(list.properties, input.sumPropertyId);
    if (!property) throw toolError(`Unknown property '${input.sumPropertyId}'; valid: ${propertyNames(list.properties)}.`);
    if (property.type !== 'number') {
      const numbers = list.properties.filter((p) => p.type === 'number').map((p) => p.name);
      throw toolError(
        `sumPropertyId '${property.name}' is a ${property.type} property; sum needs a number property${numbers.length ? ` (${numbers.join(', ')})` : ', and this list has none'}.`,
      );
    }
    const indexed = await fromValues(property.id);
    if (indexed) return { ...none, count: indexed.count, sum: indexed.sum, sumPropertyId: property.id, ...withVersion(indexed.row) };
    const [row] = (await base().select(
      db.raw('count(*)::int AS n'),
      db.raw(`coalesce(sum(CASE WHEN jsonb_typeof("values"->?) = 'number' THEN ("values"->>?)::numeric END), 0)::float8 AS total`, [property.id, property.id]),
      ...versionColumn,
    )) as { n: number; total: number; list_version?: string }[];
    return { ...none, count: row!.n, sum: row!.total, sumPropertyId: property.id, ...withVersion(row) };
  }
  const countAll = async () => {
    const [row] = (await base().select(db.raw('count(*)::int AS n'), ...versionColumn)) as { n: number; list_version?: string }[];
    return { count: row!.n, row };
  };
  if (mode === 'count') {
    const counted = (await fromValues()) ?? (await countAll());
    return { ...none, count: counted.count, sum: null, sumPropertyId: null, ...withVersion(counted.row) };
  }

  const offset = input.offset ?? 0;
  const limit = input.limit ?? 50;
  const q = base()
    .select('*', db.raw('count(*) OVER () AS total_matching'), ...versionColumn)
    .offset(offset)
    .limit(limit + 1);
  applySort(q, input.sort ?? null, list.properties, keeps);
  const rows = (await q) as (ItemDbRow & { total_matching: number; list_version?: string })[];
  // A page past the end has no row to carry the window count: count apart.
  const apart = rows.length === 0 && offset > 0 ? await countAll() : undefined;
  const total = rows[0]?.total_matching ?? apart?.count ?? 0;
  return {
    count: Number(total),
    sum: null,
    sumPropertyId: null,
    rows: rows.slice(0, limit),
    offset,
    hasMore: rows.length > limit,
    ...withVersion(rows[0] ?? apart?.row),
  };
}
