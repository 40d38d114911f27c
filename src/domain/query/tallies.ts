/**
 * The tallies (migrations 20261126000300 and 20261201000100): for each select property of a
 * list, how many live items carry each option and the sum of each number property over them,
 * kept in place by the triggers on items in each writer's transaction, under the list's lock.
 *
 * query_items' count and sum with one `eq` on a select read here: a handful of index entries
 * whatever the size of the list.
 */
import type { Knex } from 'knex';
import { preparedRaw } from '../../store/prepared.js';

export interface TallyFigure {
  count: number;
  sum: number | null;
  /** The statement's row, with the column `also` asked for. */
  row: Record<string, unknown>;
}

/**
 * The count of the list's items whose select property `propertyId` is `optionId` (archived
 * ones too only with `includeArchived`), and with `sumPropertyId` the sum of that number
 * property over them; null when the property is not tallied, and the caller then counts
 * another way.
 */
export async function readTally(
  db: Knex,
  listId: string,
  propertyId: string,
  optionId: string,
  options: { includeArchived: boolean; sumPropertyId?: string /** One more column to read with it (the list's version). */; also?: Knex.Raw | null },
): Promise<TallyFigure | null> {
  const summed = options.sumPropertyId ?? '';
  const archived = options.includeArchived ? '' : ' AND NOT archived';
  const bindings: unknown[] = [listId, propertyId, summed];
  let sql =
    'WITH t AS (SELECT generation FROM tallied_properties WHERE list_id = ? AND property_id = ?)' +
    ' SELECT (SELECT count(*) FROM t)::int AS tallied,' +
    " coalesce(sum(x.n) FILTER (WHERE x.summed = ''), 0)::int AS n, coalesce(sum(x.total) FILTER (WHERE x.summed = ?), 0)::float8 AS total";
  if (options.also) {
    sql += ', ?';
    bindings.push(options.also);
  }
  sql += ` FROM value_tallies x, t WHERE x.generation = t.generation AND x.text_value = ? AND x.summed IN ('', ?)${archived}`;
  bindings.push(optionId, summed);
  // Prepared: planning this statement took longer than running it (bench/README.md).
  const row = (await preparedRaw<{ rows: { tallied: number; n: number; total: number }[] }>(db, sql, bindings as Knex.RawBinding[])).rows[0]!;
  if (row.tallied === 0) return null;
  return { count: row.n, sum: options.sumPropertyId !== undefined ? row.total : null, row };
}
