/**
 * Vector codes (src/search/vector-codes.ts): the Postgres index reranks its shortlist by the
 * cosine of one-byte codes in Node; rows indexed before codes existed are reranked in SQL.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Embedder, SearchDoc } from '../../src/core/search-index.js';
import { PostgresSearchIndex } from '../../src/search/postgres.js';
import { dot, normalize } from '../../src/search/embedders/vectors.js';
import { dotWithCode, encodeVector } from '../../src/search/vector-codes.js';
import { migrate } from '../../src/store/db.js';
import { createTestDatabase } from '../support/db.js';

const unitVector = (dimensions: number) =>
  fc
    .array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: dimensions, maxLength: dimensions })
    .filter((xs) => xs.some((x) => Math.abs(x) > 1e-3))
    .map((xs) => normalize(Float32Array.from(xs)));

describe('vector codes', () => {
  it('give the cosine of two unit vectors to within 0.01', () => {
    fc.assert(
      fc.property(unitVector(512), unitVector(512), (a, b) => {
        const code = encodeVector(a);
        expect(code.length).toBe(4 + 512);
        expect(Math.abs(dotWithCode(code, b)! - dot(a, b))).toBeLessThan(0.01);
        expect(dotWithCode(code, a)!).toBeGreaterThan(0.99);
      }),
      { numRuns: 50 },
    );
  });

  it('refuse a vector of another size (another model) and code a zero vector as zero', () => {
    expect(dotWithCode(encodeVector(new Float32Array(8).fill(0.5)), new Float32Array(16))).toBeNull();
    expect(dotWithCode(encodeVector(new Float32Array(8)), new Float32Array(8).fill(1))).toBe(0);
  });
});

/** A deterministic embedder: a text's vector counts its letters. */
class LetterEmbedder implements Embedder {
  readonly name = 'test:letters';
  readonly dimensions = 26;
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const v = new Float32Array(26).fill(0.01);
      for (const c of text.toLowerCase()) if (c >= 'a' && c <= 'z') v[c.charCodeAt(0) - 97]! += 1;
      return normalize(v);
    });
  }
}

describe('reranking on postgres', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let index: PostgresSearchIndex;
  const owner = randomUUID();
  const doc = (title: string, body: string): SearchDoc => ({
    itemId: randomUUID(),
    ownerId: owner,
    readerIds: [owner],
    listId: randomUUID(),
    listName: 'Notes',
    title,
    body,
    values: '',
    createdAt: new Date('2026-11-01T00:00:00Z'),
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.knex);
    index = new PostgresSearchIndex(db.knex, new LetterEmbedder());
    await index.upsert([
      doc('Zebra crossing', 'zebra zebra zebra'),
      doc('Quiz night', 'quiz quizzes every week'),
      doc('Mixed bag', 'zebra quiz apple'),
      doc('Apples', 'apple apple pie'),
    ]);
  });
  afterAll(async () => db.drop());

  it('stores a code with every vector', async () => {
    const rows = (await db.knex('search_passages').select('embedding_code')) as { embedding_code: Buffer | null }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.embedding_code).toHaveLength(4 + 26);
  });

  it('ranks passages indexed before codes existed (real[] only, cosine in SQL) as it ranks coded ones', async () => {
    const query = { readerId: owner, text: 'zebra quiz', limit: 10, mode: 'semantic' as const };
    const coded = await index.search(query);
    expect(coded.length).toBeGreaterThan(0);
    await db.knex('search_passages').update({ embedding_code: null });
    const uncoded = await index.search(query);
    expect(uncoded.map((hit) => hit.itemId)).toEqual(coded.map((hit) => hit.itemId));
    uncoded.forEach((hit, i) => expect(Math.abs(hit.score - coded[i]!.score)).toBeLessThan(0.01));
  });
});
