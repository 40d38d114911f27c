/**
 * query_items' count and sum from `item_values` (migration 20261126000100): each live item's
 * scalar property values, one row per item and property, kept by triggers. A count or sum whose
 * conditions are all `eq` on a select property or a comparison on a number property is
 * answered from that table's indexes alone, so it costs about the same on a list of 20,000
 * items as on one of 2,000 (the items table would be visited once per matching item).
 * Anything else (other kinds or ops, labels, dates of creation or change) goes the general way
 * (query.ts), which gives the same answers.
 */
import type { Knex } from 'knex';
import type { Property } from '../lists/properties.js';
import { isEmptyValue } from '../lists/values.js';
import { bind, target, type WhereClause } from './where.js';

const NUMBER_OPS: Record<string, string> = { eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' };

interface Condition {
  /** `option`: an `eq` on a select property, `value` the option's id; `number`: a comparison on a number property. */
  kind: 'option' | 'number';
  propertyId: string;
  sql: string;
  value: string | number;
}

/** The clauses as conditions on item_values rows, or null when one of them is not of the kinds above (or is not valid: the general way then says why). */
export function valueConditions(clauses: WhereClause[], properties: Property[], keeps: { status: boolean; due: boolean }): Condition[] | null {
  if (clauses.length === 0) return null;
  const conditions: Condition[] = [];
  try {
    for (const [index, clause] of clauses.entries()) {
      if (Array.isArray(clause.value) || isEmptyValue(clause.value)) return null;
      const t = target(properties, clause.property, keeps);
      if (!t.property) return null;
      const where = `where[${index}]`;
      if (t.kind === 'option' && clause.op === 'eq') {
        conditions.push({ kind: 'option', propertyId: t.property.id, sql: 'text_value = ?', value: bind(t, clause.value, where) as string });
      } else if (t.kind === 'number' && NUMBER_OPS[clause.op]) {
        conditions.push({
          kind: 'number',
          propertyId: t.property.id,
          sql: `num_value ${NUMBER_OPS[clause.op]} ?::numeric`,
          value: bind(t, clause.value, where) as number,
        });
      } else return null;
    }
  } catch {
    return null;
  }
  return conditions;
}

/**
 * The count (and with `sumPropertyId`, the sum of that number property) of the list's items
 * meeting every condition: archived ones too only with `includeArchived`.
 */
export async function aggregateValues(
  db: Knex,
  listId: string,
  conditions: Condition[],
  options: { includeArchived: boolean; sumPropertyId?: string /** One more column to read with it (the list's version). */; also?: Knex.Raw | null },
): Promise<{ count: number; sum: number | null; row: Record<string, unknown> }> {
  const [first, ...rest] = conditions;
  const bindings: unknown[] = [];
  let sql = 'SELECT count(*)::int AS n';
  if (options.also) {
    sql += ', ?';
    bindings.push(options.also);
  }
  if (options.sumPropertyId !== undefined) {
    // The summed property's numbers of the list, from their index alone, joined to the matches by item.
    sql +=
      ', coalesce(sum(s.num_value), 0)::float8 AS total FROM item_values f' +
      ' LEFT JOIN item_values s ON s.item_id = f.item_id AND s.list_id = f.list_id AND s.property_id = ? AND s.num_value IS NOT NULL';
    bindings.push(options.sumPropertyId);
  } else sql += ' FROM item_values f';
  sql += ` WHERE f.list_id = ? AND f.property_id = ? AND f.${first!.sql}`;
  bindings.push(listId, first!.propertyId, first!.value);
  if (!options.includeArchived) sql += ' AND NOT f.archived';
  for (const c of rest) {
    sql += ` AND EXISTS (SELECT 1 FROM item_values g WHERE g.item_id = f.item_id AND g.property_id = ? AND g.${c.sql})`;
    bindings.push(c.propertyId, c.value);
  }
  const row = (await db.raw(sql, bindings as Knex.RawBinding[])).rows[0] as { n: number; total?: number };
  return { count: row.n, sum: options.sumPropertyId !== undefined ? row.total! : null, row };
}
