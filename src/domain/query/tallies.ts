/**
 * The tallies (migration 20261126000300): for each select property of a list, how many live
 * items carry each option and the sum of each number property over them. Writers append
 * deltas in their own transaction (triggers on items); this module reads a figure, folds the
 * deltas into the figures, and builds the figures of a property that already had values when
 * it was registered (a retype to select, an import, which writes its items before the list's
 * properties, or every select property when the migration ran).
 *
 * query_items' count and sum with one `eq` on a select read here: the folded figure and the
 * deltas not yet folded, a handful of index entries whatever the size of the list.
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
 * property over them; null when the property is not tallied or its figures are not built yet,
 * and the caller then counts another way.
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
    'WITH t AS (SELECT generation FROM tallied_properties WHERE list_id = ? AND property_id = ? AND ready)' +
    ' SELECT (SELECT count(*) FROM t)::int AS tallied,' +
    " coalesce(sum(u.n) FILTER (WHERE u.summed = ''), 0)::int AS n, coalesce(sum(u.total) FILTER (WHERE u.summed = ?), 0)::float8 AS total";
  if (options.also) {
    sql += ', ?';
    bindings.push(options.also);
  }
  // The folded figures and the deltas since, of the one registration, for the count and the summed property.
  const part = (table: string) =>
    `SELECT x.n, x.total, x.summed FROM ${table} x, t WHERE x.generation = t.generation AND x.text_value = ? AND x.summed IN ('', ?)${archived}`;
  sql += ` FROM (${part('value_tallies')} UNION ALL ${part('value_tally_deltas')}) u`;
  bindings.push(optionId, summed, optionId, summed);
  // Prepared: planning this statement took longer than running it (bench/README.md).
  const row = (await preparedRaw<{ rows: { tallied: number; n: number; total: number }[] }>(db, sql, bindings as Knex.RawBinding[])).rows[0]!;
  if (row.tallied === 0) return null;
  return { count: row.n, sum: options.sumPropertyId !== undefined ? row.total : null, row };
}

/** Numbers that name the fold's lock (one process folds at a time) and, with a registration's generation, a build's. */
const FOLD_LOCK = 7_402_614_311;
const BUILD_LOCK = 7_402_615;

/**
 * Moves up to `batch` deltas into the figures and deletes them, in one transaction, so a read
 * sees them on one side or the other, never both. Deltas of a registration being built are
 * left for the build; those of a dropped registration are deleted. Returns how many deltas it
 * took (0 too when another process holds the fold).
 */
export async function foldTallies(db: Knex, batch = 10_000): Promise<number> {
  return db.transaction(async (trx) => {
    const lock = (await trx.raw('SELECT pg_try_advisory_xact_lock(?) AS ok', [FOLD_LOCK])).rows[0] as { ok: boolean };
    if (!lock.ok) return 0;
    // The registrations folded into, held so that none is dropped meanwhile (its figures would
    // outlive it); one being dropped is skipped, never waited for, and its deltas go next time.
    const held = (
      await trx.raw(
        `SELECT generation FROM tallied_properties
          WHERE ready AND generation IN (SELECT DISTINCT generation FROM value_tally_deltas)
          ORDER BY generation FOR KEY SHARE SKIP LOCKED`,
      )
    ).rows.map((r: { generation: string }) => r.generation) as string[];
    const { rows } = await trx.raw(
      `WITH moved AS (
         DELETE FROM value_tally_deltas WHERE id IN (
           SELECT d.id FROM value_tally_deltas d
            WHERE d.generation = ANY (?::bigint[]) OR NOT EXISTS (SELECT 1 FROM tallied_properties t WHERE t.generation = d.generation)
            ORDER BY d.id LIMIT ?)
         RETURNING generation, text_value, summed, archived, n, total
       ), folded AS (
         INSERT INTO value_tallies AS v (generation, text_value, summed, archived, n, total)
         SELECT generation, text_value, summed, archived, sum(n), sum(total) FROM moved
          WHERE generation = ANY (?::bigint[])
          GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
         ON CONFLICT (generation, text_value, summed, archived) DO UPDATE SET n = v.n + EXCLUDED.n, total = v.total + EXCLUDED.total
       )
       SELECT count(*)::int AS moved FROM moved`,
      [held, batch, held],
    );
    return (rows[0] as { moved: number }).moved;
  });
}

/**
 * Builds the figures of registrations made while items already had values for them. A writer
 * whose trigger ran before a registration committed wrote no delta for it; the build waits
 * until every transaction of this database that had an id when it first saw the registration
 * has ended, then, in one snapshot, counts item_values, deletes the deltas that snapshot sees
 * and marks the registration ready. Deltas committed after the snapshot stay, and are folded
 * later. Returns how many registrations it made ready.
 *
 * The first sight notes its own transaction id: every id handed out before it is smaller. (Not
 * the snapshot's xmax, which is one past the newest *ended* transaction: a writer newer than
 * that, still open, would have passed the wait.) Only this database's transactions are waited
 * for, since no other can write its items; an open transaction in another database of the
 * cluster does not hold a build back.
 *
 * Its statements run each on its own (`db` is the pool, never a transaction): the view of the
 * open transactions is read afresh by each, and a build's snapshot comes after it. An idle
 * session left in a transaction, or a forgotten prepared transaction, in this database holds
 * builds back until it ends; reads answer the other way meanwhile.
 *
 * The wait holds for writers at READ COMMITTED, the service's level: their trigger's statement
 * takes its snapshot after their row's write gave them a transaction id. A writer at
 * REPEATABLE READ could have taken its snapshot before the registration and its id after the
 * first sight, and its change would be missed; none writes items so.
 */
export async function buildTallies(db: Knex, batch = 10): Promise<number> {
  // The first sight of a registration: every writer that can have missed it has an id below this.
  // Rows a list change holds are skipped, never waited for (it may wait on one of ours): seen next run.
  await db.raw(
    `UPDATE tallied_properties SET waits_for = pg_current_xact_id()
      WHERE generation IN (SELECT generation FROM tallied_properties WHERE NOT ready AND waits_for IS NULL FOR UPDATE SKIP LOCKED)`,
  );
  // Due when no transaction of this database (prepared ones too) holds an id older than the
  // first sight's: ids compared by age, safe across wraparound. Or when the cluster's oldest
  // open id is past it (what also builds one that waited so long that its age overflowed).
  const due = (
    await db.raw(
      `WITH open AS (
         SELECT backend_xid AS xid FROM pg_stat_activity WHERE datname = current_database() AND backend_xid IS NOT NULL
         UNION ALL SELECT transaction FROM pg_prepared_xacts WHERE database = current_database()
       )
       SELECT generation, list_id, property_id FROM tallied_properties t
        WHERE NOT ready AND waits_for IS NOT NULL
          AND (waits_for <= pg_snapshot_xmin(pg_current_snapshot())
               OR NOT EXISTS (SELECT 1 FROM open WHERE age(open.xid) > age(xid(t.waits_for))))
        ORDER BY generation LIMIT ?`,
      [batch],
    )
  ).rows as { generation: string; list_id: string; property_id: string }[];
  let built = 0;
  for (const registration of due) {
    try {
      if (await db.transaction((trx) => build(trx, registration), { isolationLevel: 'repeatable read' })) built++;
    } catch (err) {
      // Dropped since it was picked, or another process's build of it came first: the snapshot no longer holds.
      if (!CAME_FIRST.includes((err as { code?: string }).code ?? '')) throw err;
    }
  }
  return built;
}

async function build(trx: Knex.Transaction, r: { generation: string; list_id: string; property_id: string }): Promise<boolean> {
  // One process builds a registration at a time; the others leave it.
  const lock = (await trx.raw('SELECT pg_try_advisory_xact_lock(?, ?) AS ok', [BUILD_LOCK, Number(BigInt(r.generation) % 2_147_483_647n)])).rows[0] as {
    ok: boolean;
  };
  if (!lock.ok) return false;
  const current = (await trx('tallied_properties').where({ generation: r.generation }).first('ready')) as { ready: boolean } | undefined;
  if (!current || current.ready) return false;
  await trx.raw('DELETE FROM value_tally_deltas WHERE generation = ?', [r.generation]);
  await trx.raw('DELETE FROM value_tallies WHERE generation = ?', [r.generation]);
  await trx.raw(
    `INSERT INTO value_tallies (generation, text_value, summed, archived, n, total)
     SELECT ?::bigint, f.text_value, '', f.archived, count(*), 0 FROM item_values f
      WHERE f.list_id = ? AND f.property_id = ? AND f.text_value IS NOT NULL GROUP BY f.text_value, f.archived
     UNION ALL
     SELECT ?::bigint, f.text_value, s.property_id, f.archived, count(*), sum(s.num_value) FROM item_values f
       JOIN item_values s ON s.item_id = f.item_id AND s.num_value IS NOT NULL
      WHERE f.list_id = ? AND f.property_id = ? AND f.text_value IS NOT NULL GROUP BY f.text_value, s.property_id, f.archived`,
    [r.generation, r.list_id, r.property_id, r.generation, r.list_id, r.property_id],
  );
  // Seen in this snapshot: dropped or built by another since, this fails with a serialization failure.
  await trx('tallied_properties').where({ generation: r.generation }).update({ ready: true });
  return true;
}

/** A serialization failure, or a unique violation: what a build meets when another process's build or a drop of the same registration committed inside its snapshot's window. */
const CAME_FIRST = ['40001', '23505'];
