import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/** Postgres's "cached plan must not change result type": a migration changed a table the statement reads. */
const PLAN_CHANGED = '0A000';

/**
 * Runs a raw statement as a prepared statement: each pooled connection parses and plans it
 * once, then only binds and executes. For the statements every request runs (the guard's,
 * get_item's), planning cost Postgres more than executing them (bench/README.md). The name
 * comes from the text, so one text is one statement however many call sites run it.
 *
 * A statement prepared before a migration changed its tables (a rolling upgrade: another
 * process migrated) fails once with PLAN_CHANGED; it is then run unprepared. In a
 * transaction, where that failure would abort the transaction, it is not prepared.
 */
const names = new Map<string, string>();

export async function preparedRaw<T = unknown>(db: Knex, sql: string, bindings: readonly Knex.RawBinding[]): Promise<T> {
  if ((db as Knex & { isTransaction?: boolean }).isTransaction) return (await db.raw<T>(sql, bindings)) as T;
  let name = names.get(sql);
  if (name === undefined) names.set(sql, (name = `lk_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`));
  try {
    return (await db.raw<T>(sql, bindings).options({ name })) as T;
  } catch (err) {
    if ((err as { code?: string }).code !== PLAN_CHANGED) throw err;
    return (await db.raw<T>(sql, bindings)) as T;
  }
}
