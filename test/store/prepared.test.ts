/**
 * preparedRaw (src/store/prepared.ts): a statement is prepared once per connection and its
 * answers are those of the plain statement; after a migration changes a table it reads
 * (another process upgraded), it still answers; in a transaction it is not prepared.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { createDb } from '../../src/store/db.js';
import { preparedRaw } from '../../src/store/prepared.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import type { Knex } from 'knex';

describe('prepared statements', () => {
  let database: TestDatabase;
  let db: Knex;
  const prepared = async () =>
    ((await db.raw(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'lk\\_%'`)) as { rows: { n: number }[] }).rows[0]!.n;
  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection: the prepared statements seen are the ones the calls made.
    db = createDb(database.url, 1);
    await db.raw('CREATE TABLE notes (id int PRIMARY KEY, text text)');
    await db.raw(`INSERT INTO notes VALUES (1, 'one'), (2, 'two')`);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('prepares a statement once and answers as the plain statement does', async () => {
    const sql = 'SELECT * FROM notes WHERE id = ?';
    const first = (await preparedRaw<{ rows: unknown[] }>(db, sql, [1])).rows;
    const second = (await preparedRaw<{ rows: unknown[] }>(db, sql, [2])).rows;
    expect(first).toEqual([{ id: 1, text: 'one' }]);
    expect(second).toEqual(((await db.raw(sql, [2])) as { rows: unknown[] }).rows);
    expect(await prepared()).toBe(1);
  });

  it('still answers after a migration changed the table it reads', async () => {
    const sql = 'SELECT * FROM notes WHERE id = ?';
    await preparedRaw(db, sql, [1]);
    await db.raw('ALTER TABLE notes ADD COLUMN pinned boolean NOT NULL DEFAULT false');
    expect((await preparedRaw<{ rows: unknown[] }>(db, sql, [1])).rows).toEqual([{ id: 1, text: 'one', pinned: false }]);
  });

  it('is not prepared in a transaction', async () => {
    const before = await prepared();
    await db.transaction(async (trx) => {
      expect((await preparedRaw<{ rows: unknown[] }>(trx, 'SELECT text FROM notes WHERE id = ? AND true', [2])).rows).toEqual([{ text: 'two' }]);
    });
    expect(await prepared()).toBe(before);
  });
});
