import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { migrationSource } from './migrations/index.js';

// Counts and bigints come back from pg as strings; the few we read are small, so make them
// numbers once, here, instead of at every call site.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/** A knex pool on the given Postgres URL. */
export function createDb(url: string, poolMax = 10): Knex {
  return knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: poolMax } });
}

/** Applies every pending migration; returns the names applied. */
export async function migrate(db: Knex): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
