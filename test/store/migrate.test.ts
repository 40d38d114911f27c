/** Migrations when several server processes start at once on one empty database. */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createDb, migrate } from '../../src/store/db.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

describe('migrate', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database.drop());

  it('lets four processes starting together take turns: one applies every migration, the others wait and find none pending', async () => {
    const pools = Array.from({ length: 4 }, () => createDb(database.url, 2));
    try {
      const results = await Promise.all(pools.map((db) => migrate(db)));
      const appliers = results.filter((names) => names.length > 0);
      expect(appliers).toHaveLength(1);
      expect(results.flat().length).toBe(appliers[0]!.length);
      const rows = (await database.knex('knex_migrations').select('name')) as { name: string }[];
      expect(rows.map((r) => r.name)).toEqual(appliers[0]);
    } finally {
      await Promise.all(pools.map((db) => db.destroy()));
    }
  });
});
