/**
 * Rebuilding the index from the items table (`listkeeper search reindex`, and the server when the index is missing
 * items or was built with another embedder): all accounts or one, resuming after an interruption, one run at a
 * time. Keyword-only (no model to load).
 */
import { describe, it, expect, beforeAll, beforeEach } from '@jest/globals';
import { pino } from 'pino';
import { useTestServer, startTestServer } from '../support/server.js';
import { startBackgroundReindex } from '../../src/jobs/search-reindex.js';
import { continueReindex, planReindex, reindex, storedIdentity, ReindexBusyError, type IndexIdentity, type ReindexProgress } from '../../src/search/reindex.js';
import { PostgresSearchIndex } from '../../src/search/postgres.js';
import { metricsText } from '../../src/core/metrics.js';
import type { SearchDoc, SearchHit, SearchIndex } from '../../src/core/search-index.js';
import { create_items } from '../../src/operations/create_items.js';
import { delete_items } from '../../src/operations/delete_items.js';

const IDENTITY: IndexIdentity = { backend: 'postgres', embedder: 'none', dimensions: 0 };

/** Passes writes to the Postgres index, remembering the items upserted; fails the n-th upsert when told. */
class CountingIndex implements SearchIndex {
  readonly name = 'postgres';
  upserted: string[] = [];
  failOnUpsert: number | null = null;
  private calls = 0;
  constructor(private readonly inner: SearchIndex) {}
  async upsert(docs: SearchDoc[]): Promise<void> {
    if (++this.calls === this.failOnUpsert) throw new Error('interrupted');
    this.upserted.push(...docs.map((d) => d.itemId));
    await this.inner.upsert(docs);
  }
  remove(itemIds: string[]): Promise<void> {
    return this.inner.remove(itemIds);
  }
  search(): Promise<SearchHit[]> {
    return Promise.resolve([]);
  }
  clear(): Promise<void> {
    return this.inner.clear!();
  }
}

describe('search reindex', () => {
  const { server, ada, account } = useTestServer({ env: { EMBEDDINGS: 'none' }, accounts: ['Ada', 'Bea'] });
  const bea = account('Bea');
  let adaIds: string[];
  let beaIds: string[];
  let trashed: string;
  let pg: PostgresSearchIndex;
  const indexedIds = async () => ((await server.db('search_passages').distinct('item_id').pluck('item_id')) as string[]).sort();

  beforeAll(async () => {
    pg = new PostgresSearchIndex(server.db, null);
    adaIds = (await create_items(server.context(ada), { listId: 'notes', items: Array.from({ length: 9 }, (_, i) => ({ title: `Ada note ${i}` })) })).items.map(
      (i) => i.id,
    );
    beaIds = (await create_items(server.context(bea), { listId: 'notes', items: Array.from({ length: 3 }, (_, i) => ({ title: `Bea note ${i}` })) })).items.map(
      (i) => i.id,
    );
    trashed = adaIds.pop()!;
    await delete_items(server.context(ada), { itemIds: [trashed] });
  });
  beforeEach(async () => {
    await pg.clear();
    await server.db('search_state').delete();
  });

  it('rebuilds every live item, drops what is trashed or gone, and records what built it', async () => {
    await pg.upsert([
      { itemId: trashed, ownerId: ada.userId, readerIds: [ada.userId], listId: beaIds[0]!, listName: 'x', title: 'stale', body: null, createdAt: new Date() },
    ]);
    const stale = '00000000-0000-4000-8000-000000000001';
    await pg.upsert([
      {
        itemId: stale,
        ownerId: ada.userId,
        readerIds: [ada.userId],
        listId: beaIds[0]!,
        listName: 'x',
        title: 'purged long ago',
        body: null,
        createdAt: new Date(),
      },
    ]);
    const seen: ReindexProgress[] = [];
    const result = await reindex(server.db, pg, IDENTITY, { clear: true, batchSize: 4, onProgress: (p) => seen.push(p) });
    expect(await indexedIds()).toEqual([...adaIds, ...beaIds].sort());
    expect(result).toEqual({ done: 12, total: 12, resumedAt: 0 });
    expect(seen.map((p) => p.done)).toEqual([0, 4, 8, 12]);
    expect(await storedIdentity(server.db)).toEqual(IDENTITY);
    expect(await server.db('search_state').where('key', 'like', 'reindex:%')).toEqual([]);
  });

  it('rebuilds one account only', async () => {
    const index = new CountingIndex(pg);
    await reindex(server.db, index, IDENTITY, { ownerId: bea.userId });
    expect(index.upserted.sort()).toEqual([...beaIds].sort());
    // A one-account run does not vouch for the whole index.
    expect(await storedIdentity(server.db)).toBeNull();
  });

  it('continues after the last finished batch when a run was interrupted', async () => {
    const first = new CountingIndex(pg);
    first.failOnUpsert = 3;
    // Items are visited in id order, trashed ones included (they are removed, not upserted).
    const all = [...adaIds, trashed, ...beaIds].sort();
    const live = (ids: string[]) => ids.filter((id) => id !== trashed);
    await expect(reindex(server.db, first, IDENTITY, { batchSize: 4 })).rejects.toThrow('interrupted');
    expect(first.upserted.sort()).toEqual(live(all.slice(0, 8)));
    const checkpoint = (await server.db('search_state').where({ key: 'reindex:all' }).first()) as { value: { afterId: string; done: number } };
    expect(checkpoint.value).toMatchObject({ done: 8, afterId: all[7] });

    const second = new CountingIndex(pg);
    const result = await reindex(server.db, second, IDENTITY, { batchSize: 4 });
    expect(result).toEqual({ done: 12, total: 12, resumedAt: 8 });
    expect(second.upserted.sort()).toEqual(live(all.slice(8)));
    expect(await indexedIds()).toEqual([...adaIds, ...beaIds].sort());
  });

  it('starts over with --restart, or when the checkpoint came from another embedder', async () => {
    const first = new CountingIndex(pg);
    first.failOnUpsert = 2;
    await expect(reindex(server.db, first, IDENTITY, { batchSize: 4 })).rejects.toThrow('interrupted');
    const restarted = new CountingIndex(pg);
    expect(await reindex(server.db, restarted, IDENTITY, { batchSize: 4, restart: true })).toMatchObject({ resumedAt: 0, done: 12 });

    const again = new CountingIndex(pg);
    again.failOnUpsert = 2;
    await expect(reindex(server.db, again, IDENTITY, { batchSize: 4 })).rejects.toThrow('interrupted');
    const other = { backend: 'postgres', embedder: 'openai:nomic-embed-text', dimensions: 768 };
    expect(await reindex(server.db, new CountingIndex(pg), other, { batchSize: 4 })).toMatchObject({ resumedAt: 0, done: 12 });
  });

  it('refuses --clear for one account', async () => {
    await expect(reindex(server.db, pg, IDENTITY, { ownerId: ada.userId, clear: true })).rejects.toThrow(/only goes with a reindex of all accounts/);
  });

  it('plans a rebuild at start when items predate search or another embedder built the index, and works through it', async () => {
    expect(await planReindex(server.db, IDENTITY)).toBe('items were saved before search indexed them');
    expect(await storedIdentity(server.db)).toEqual(IDENTITY);
    expect(await continueReindex(server.db, pg, IDENTITY)).toEqual({ done: 12, total: 12, resumedAt: 0 });
    expect(await indexedIds()).toEqual([...adaIds, ...beaIds].sort());
    expect(await continueReindex(server.db, pg, IDENTITY)).toBeNull();
    expect(await planReindex(server.db, IDENTITY)).toBeNull();
    expect(await continueReindex(server.db, pg, IDENTITY)).toBeNull();

    const local = { backend: 'postgres', embedder: 'local:use-lite', dimensions: 512 };
    expect(await planReindex(server.db, local)).toBe(
      'the index was built with postgres and the none embedder and this process uses postgres and the local:use-lite embedder (512 dimensions)',
    );
    expect(await storedIdentity(server.db)).toEqual(local);
    expect(await server.db('search_state').where({ key: 'reindex:all' }).first()).toBeDefined();
  });

  it('records a fresh index without planning anything when there are no items', async () => {
    const empty = await startTestServer({ EMBEDDINGS: 'none' });
    try {
      expect(await planReindex(empty.db, IDENTITY)).toBeNull();
      expect(await storedIdentity(empty.db)).toEqual(IDENTITY);
      expect(await empty.db('search_state').where({ key: 'reindex:all' })).toEqual([]);
    } finally {
      await empty.close();
    }
  });

  it('lets one process at a time rebuild a scope', async () => {
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const slow = new CountingIndex(pg);
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    slow.upsert = async () => {
      entered();
      await holding;
    };
    const first = reindex(server.db, slow, IDENTITY, { batchSize: 100 });
    await inside;
    await expect(reindex(server.db, pg, IDENTITY)).rejects.toThrow(ReindexBusyError);
    expect(await continueReindex(server.db, pg, IDENTITY)).toBeNull();
    // Another scope is another lock.
    expect(await reindex(server.db, pg, IDENTITY, { ownerId: bea.userId })).toMatchObject({ done: 3 });
    release();
    await first;
    expect(await reindex(server.db, pg, IDENTITY)).toMatchObject({ done: 12 });
  });

  it('rebuilds in the background of a server and stops between batches when asked', async () => {
    const log = pino({ level: 'silent' });
    const background = startBackgroundReindex(server.db, pg, IDENTITY, log);
    for (let i = 0; i < 200 && (await server.db('search_state').where({ key: 'reindex:all' }).first()) === undefined; i++)
      await new Promise((r) => setTimeout(r, 25));
    await background.stop();
    // Either it finished or it stopped with its checkpoint kept; a second start finishes the rest.
    const again = startBackgroundReindex(server.db, pg, IDENTITY, log);
    for (let i = 0; i < 400 && (await server.db('search_state').where({ key: 'reindex:all' }).first()) !== undefined; i++)
      await new Promise((r) => setTimeout(r, 25));
    await again.stop();
    expect(await server.db('search_state').where({ key: 'reindex:all' })).toEqual([]);
    expect(await indexedIds()).toEqual([...adaIds, ...beaIds].sort());
  });

  it("shows the background rebuild's progress in /metrics while it runs, and none after", async () => {
    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const slow = new CountingIndex(pg);
    const upsert = slow.upsert.bind(slow);
    slow.upsert = async (docs) => {
      entered();
      await holding;
      await upsert(docs);
    };
    await planReindex(server.db, { ...IDENTITY, embedder: 'local:another-model', dimensions: 384 });
    const background = startBackgroundReindex(server.db, slow, IDENTITY, pino({ level: 'silent' }));
    await inside;
    const during = (await metricsText()).body;
    expect(during).toContain('listkeeper_search_reindex_items{state="done"} 0');
    // Every row of items is visited (a trashed one to drop its passages).
    const { n } = (await server.db('items').count({ n: '*' }).first()) as { n: string };
    expect(during).toContain(`listkeeper_search_reindex_items{state="total"} ${n}`);
    release();
    for (let i = 0; i < 400 && (await server.db('search_state').where({ key: 'reindex:all' }).first()) !== undefined; i++)
      await new Promise((r) => setTimeout(r, 25));
    await background.stop();
    expect((await metricsText()).body).not.toContain('listkeeper_search_reindex_items{');
  });
});
