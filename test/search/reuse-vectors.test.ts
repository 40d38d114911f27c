/**
 * The outbox path keeps the stored vector of a passage whose text did not change (a status or
 * due-date change re-indexes the item but embeds nothing); a rebuild embeds everything. One
 * suite, run on both backends.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Meilisearch } from 'meilisearch';
import type { Embedder, SearchDoc, SearchIndex } from '../../src/core/search-index.js';
import { PostgresSearchIndex } from '../../src/search/postgres.js';
import { fieldOf, MeiliSearchIndex } from '../../src/search/meili.js';
import { normalize } from '../../src/search/embedders/vectors.js';
import { migrate } from '../../src/store/db.js';
import { createTestDatabase } from '../support/db.js';
import { startMeilisearch } from '../support/meili.js';

/** A deterministic embedder that records every text it is asked for. */
class CountingEmbedder implements Embedder {
  readonly name = 'test:counting';
  readonly dimensions = 8;
  readonly seen: string[] = [];
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.seen.push(...texts);
    return texts.map((t) => normalize(Float32Array.from({ length: 8 }, (_, d) => ((t.charCodeAt(d % t.length) * (d + 1)) % 17) - 8 + 0.5)));
  }
}

/** A backend under test: the index, the vectors it stores in passage order, and how to shut down. */
interface Backend {
  index: SearchIndex;
  stored(): Promise<number[][]>;
  close(): Promise<void>;
}

const backends: [string, (embedder: Embedder) => Promise<Backend>][] = [
  [
    'postgres',
    async (embedder) => {
      const db = await createTestDatabase();
      await migrate(db.knex);
      return {
        index: new PostgresSearchIndex(db.knex, embedder),
        stored: async () => (await db.knex('search_passages').orderBy('passage_no').pluck('embedding')) as number[][],
        close: () => db.drop(),
      };
    },
  ],
  [
    'meilisearch',
    async (embedder) => {
      const server = await startMeilisearch();
      const client = new Meilisearch({ host: server.url, apiKey: server.apiKey });
      const uid = 'reuse_passages';
      return {
        index: new MeiliSearchIndex(client, embedder, { indexUid: uid }),
        async stored() {
          const { results } = await client
            .index(uid)
            .getDocuments<{ passageNo: number; _vectors: Record<string, { embeddings: number[][] }> }>({ retrieveVectors: true, limit: 1000 });
          return results.sort((a, b) => a.passageNo - b.passageNo).map((d) => d._vectors[fieldOf(embedder.name)]!.embeddings[0]!);
        },
        close: () => server.stop(),
      };
    },
  ],
];

describe.each(backends)('reusing stored vectors on %s', (_name, open) => {
  let backend: Backend;
  const embedder = new CountingEmbedder();
  let index: SearchIndex;
  const owner = randomUUID();
  const doc = (over: Partial<SearchDoc> = {}): SearchDoc => ({
    itemId: '00000000-0000-4000-8000-000000000001',
    ownerId: owner,
    readerIds: [owner],
    listId: randomUUID(),
    listName: 'Notes',
    title: 'Boiler service',
    body: 'Call the plumber about the boiler pressure before winter.',
    values: '',
    createdAt: new Date('2026-11-01T00:00:00Z'),
    ...over,
  });
  const stored = () => backend.stored();

  beforeAll(async () => {
    backend = await open(embedder);
    index = backend.index;
  });
  afterAll(async () => backend?.close());

  it('embeds nothing when the text is as stored, and keeps the same vectors', async () => {
    const first = doc();
    await index.upsert([first]);
    const before = await stored();
    embedder.seen.length = 0;
    await index.upsert([{ ...first, readerIds: [owner, randomUUID()] }], { reuseVectors: true });
    expect(embedder.seen).toEqual([]);
    expect(await stored()).toEqual(before);
  });

  it('embeds a passage whose text changed, and only that', async () => {
    embedder.seen.length = 0;
    await index.upsert([doc({ body: 'Call the plumber about the boiler pressure before the first frost.' })], { reuseVectors: true });
    expect(embedder.seen.length).toBeGreaterThan(0);
    expect(embedder.seen.every((t) => t.includes('first frost') || t === 'Boiler service')).toBe(true);
  });

  it('embeds again when the list name changed (it is part of what is embedded)', async () => {
    embedder.seen.length = 0;
    await index.upsert([doc({ body: 'Call the plumber about the boiler pressure before the first frost.', listName: 'Home' })], { reuseVectors: true });
    expect(embedder.seen.some((t) => t.startsWith('Home: '))).toBe(true);
  });

  it('embeds everything without reuseVectors (a rebuild)', async () => {
    embedder.seen.length = 0;
    await index.upsert([doc({ body: 'Call the plumber about the boiler pressure before the first frost.', listName: 'Home' })]);
    expect(embedder.seen.length).toBeGreaterThan(0);
  });
});
