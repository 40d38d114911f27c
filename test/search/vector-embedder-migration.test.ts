/** The migration that records each passage's embedder: rows written before it get the recorded one, unless a rebuild was unfinished. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { migrate } from '../../src/store/db.js';
import { down, up } from '../../src/store/migrations/20261202000100_search_vector_embedder.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

describe('search_passages.embedder', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await migrate(database.knex);
  });
  afterAll(async () => database.drop());

  /** The table as it was before the migration, holding one passage with a vector and one without. */
  const migrateWith = async (state: Record<string, unknown>) => {
    const db = database.knex;
    await db('search_passages').delete();
    await db('search_state').delete();
    await down(db);
    for (const [key, value] of Object.entries(state)) await db('search_state').insert({ key, value: JSON.stringify(value) });
    const row = { owner_id: randomUUID(), reader_ids: [], list_id: randomUUID(), list_name: 'Notes', text: 'x', tsv: '', created_at: new Date() };
    await db('search_passages').insert([
      { ...row, item_id: randomUUID(), passage_no: 0, embedding: [1, 0] },
      { ...row, item_id: randomUUID(), passage_no: 0, embedding: null },
    ]);
    await up(db);
    return ((await db('search_passages').orderBy('embedding').pluck('embedder')) as (string | null)[]).sort();
  };
  const index = { backend: 'postgres', embedder: 'local:use-lite', dimensions: 2 };

  it('gives vectors the recorded embedder when the index was fully built by it', async () => {
    expect(await migrateWith({ index })).toEqual(['local:use-lite', null]);
  });

  it('leaves them without one while a rebuild is unfinished (their model is unknown)', async () => {
    expect(await migrateWith({ index, 'reindex:all': { afterId: null, done: 0, identity: index, startedAt: '' } })).toEqual([null, null]);
  });
});
