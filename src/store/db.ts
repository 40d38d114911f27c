import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations/index.js';
import { parseTimestamptz } from './timestamps.js';

// Counts and bigints come back from pg as strings; the few we read are small, so make them
// numbers once, here, instead of at every call site.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, parseTimestamptz);

/** A knex pool on the given Postgres URL. */
export function createDb(url: string, poolMax = 10): Knex {
  return knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: poolMax } });
}

/** The advisory lock every process takes around its migrations (any fixed number; this one spells 'lkmg'). */
const MIGRATION_LOCK = 0x6c6b6d67;

/**
 * Applies every pending migration; returns the names applied. Several processes starting at
 * once take turns under a Postgres advisory lock: the first migrates, the others wait for it
 * and then find nothing pending (knex's own lock table would fail them instead).
 */
export async function migrate(db: Knex): Promise<string[]> {
  const conn = (await db.client.acquireConnection()) as pg.Client;
  try {
    await conn.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
      return applied;
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}
