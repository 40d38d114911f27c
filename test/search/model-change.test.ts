/**
 * A rebuild after a model change: until it is finished, search keeps answering from the old vectors (each passage
 * compared only with a query vector of the model that made it), a second process started meanwhile does too, and
 * once it is finished only the new model is used. Both backends.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Meilisearch } from 'meilisearch';
import { pino } from 'pino';
import { useTestServer } from '../support/server.js';
import { startMeilisearch, type MeiliServer } from '../support/meili.js';
import { runCli } from '../support/cli.js';
import { startBackgroundReindex } from '../../src/jobs/search-reindex.js';
import { planReindex, rebuildStatus, reindex, type IndexIdentity } from '../../src/search/reindex.js';
import { PostgresSearchIndex } from '../../src/search/postgres.js';
import { MeiliSearchIndex } from '../../src/search/meili.js';
import { defaultLocalModel } from '../../src/search/embedders/index.js';
import { LocalEmbedder } from '../../src/search/embedders/local.js';
import { USE_LITE } from '../../src/search/embedders/use-lite.js';
import { normalize } from '../../src/search/embedders/vectors.js';
import type { Embedder, PreviousModel, SearchDoc, SearchHit, SearchIndex } from '../../src/core/search-index.js';
import { create_items } from '../../src/operations/create_items.js';

/** Every text gets the same unit vector: two such models of one size would look identical if ever compared. */
class ConstantEmbedder implements Embedder {
  readonly dimensions = 8;
  constructor(readonly name: string) {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map(() => normalize(Float32Array.from({ length: 8 }, (_, d) => d + 1)));
  }
}

/** Passes calls to a model, counting the texts it embeds and whether it was closed. */
class Watched implements Embedder {
  embedded = 0;
  closed = false;
  constructor(private readonly inner: LocalEmbedder) {}
  get name() {
    return this.inner.name;
  }
  get dimensions() {
    return this.inner.dimensions;
  }
  embed(texts: string[]): Promise<Float32Array[]> {
    this.embedded += texts.length;
    return this.inner.embed(texts);
  }
  async close(): Promise<void> {
    this.closed = true;
    await this.inner.close();
  }
}

/** An index whose n-th upsert waits until released (a rebuild caught between two batches). */
class Gated implements SearchIndex {
  private calls = 0;
  release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  /** Settles when the held upsert is waiting. */
  waiting: Promise<void>;
  private reached!: () => void;
  constructor(
    private readonly inner: SearchIndex,
    private readonly holdAt: number,
  ) {
    this.waiting = new Promise((resolve) => (this.reached = resolve));
  }
  get name() {
    return this.inner.name;
  }
  async upsert(docs: SearchDoc[], options?: { reuseVectors?: boolean }): Promise<void> {
    if (++this.calls === this.holdAt) {
      this.reached();
      await this.gate;
    }
    await this.inner.upsert(docs, options);
  }
  remove(ids: string[]): Promise<void> {
    return this.inner.remove(ids);
  }
  search(q: Parameters<SearchIndex['search']>[0]): Promise<SearchHit[]> {
    return this.inner.search(q);
  }
  setPrevious(previous: PreviousModel | null): void | Promise<void> {
    return this.inner.setPrevious?.(previous);
  }
}

interface Backend {
  /** A process's index over the shared store, with its embedder. */
  open(embedder: Embedder | null): SearchIndex;
  /** A fresh, empty store for the next test. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const identity = (backend: string, e: Embedder): IndexIdentity => ({ backend, embedder: e.name, dimensions: e.dimensions });
const log = pino({ level: 'silent' });

describe.each(['postgres', 'meilisearch'])('a model change on %s', (backendName) => {
  const { server, ada } = useTestServer({ env: { EMBEDDINGS: 'none' } });
  let backend: Backend;
  let bike: string;
  let doctor: string;
  /** All items in the order a rebuild visits them. */
  let order: string[];
  const found = async (index: SearchIndex, text: string) => (await index.search({ readerId: ada.userId, text, limit: 10 })).map((h) => h.itemId);

  beforeAll(async () => {
    const items = await create_items(server.context(ada), {
      listId: 'notes',
      items: [{ title: 'Fix the bike' }, { title: 'Doctor visit on Tuesday' }, { title: 'Chocolate cake' }, { title: 'Pay the gas bill' }],
    });
    [bike, doctor] = items.items.map((i) => i.id) as [string, string];
    order = ((await server.db('items').orderBy('id').pluck('id')) as string[]).filter((id) => items.items.some((i) => i.id === id));
    if (backendName === 'postgres') {
      backend = {
        open: (e) => new PostgresSearchIndex(server.db, e),
        reset: async () => {
          await server.db('search_passages').delete();
        },
        close: async () => undefined,
      };
    } else {
      const meili: MeiliServer = await startMeilisearch();
      const client = new Meilisearch({ host: meili.url, apiKey: meili.apiKey });
      let uid = 0;
      backend = {
        open: (e) => new MeiliSearchIndex(client, e, { indexUid: `passages_${uid}` }),
        reset: async () => {
          uid++;
        },
        close: () => meili.stop(),
      };
    }
  }, 60_000);
  afterAll(async () => backend?.close());
  beforeEach(async () => {
    await backend.reset();
    await server.db('search_state').delete();
  });

  it('never compares the vectors of two models of the same size', async () => {
    const a = new ConstantEmbedder('test:model-a');
    const b = new ConstantEmbedder('test:model-b');
    await reindex(server.db, backend.open(a), identity(backendName, a));
    await planReindex(server.db, identity(backendName, b));
    const after = backend.open(b);
    // No word of the query is in any item: only a (meaningless) cross-model cosine could find one.
    expect(await found(after, 'zzz')).toEqual([]);
    // Held as the previous model, a's passages are compared with a's query vector.
    await after.setPrevious?.({ name: a.name, embedder: a });
    expect((await found(after, 'zzz')).sort()).toEqual([...order].sort());
    // A previous model that fails leaves its passages to their words; searches still answer.
    const broken: Embedder = { name: a.name, dimensions: 8, embed: () => Promise.reject(new Error('the model files are gone')) };
    await after.setPrevious?.({ name: a.name, embedder: broken });
    expect(await found(after, 'zzz')).toEqual([]);
    expect(await found(after, 'fix the bike')).toEqual([bike]);
  });

  describe('with real models (USE-lite, then the default model)', () => {
    const useLite = new LocalEmbedder(USE_LITE);
    const model = defaultLocalModel();
    const next = new LocalEmbedder(model);
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });
    afterAll(async () => {
      await useLite.close();
      await next.close();
    });

    it('answers from the old vectors until the rebuild is done, in this process and in one started meanwhile', async () => {
      expect(model.name).not.toBe(USE_LITE.name);
      await reindex(server.db, backend.open(useLite), identity(backendName, useLite));
      expect(await found(backend.open(useLite), 'bicycle repair')).toEqual([bike]);
      // The first batch ends with the first of the two items the rebuild reaches; the second waits in the next one.
      const first = Math.min(order.indexOf(bike), order.indexOf(doctor));
      const rebuilt = order[first]!;
      const waiting = rebuilt === bike ? doctor : bike;
      const olds: Watched[] = [];
      const embedderOf = (id: IndexIdentity) => {
        expect(id).toEqual(identity(backendName, useLite));
        const old = new Watched(new LocalEmbedder(USE_LITE));
        olds.push(old);
        return old;
      };
      await planReindex(server.db, identity(backendName, next));
      const gated = new Gated(backend.open(next), 2);
      const one = startBackgroundReindex(server.db, gated, identity(backendName, next), log, { embedderOf, batchSize: first + 1 });
      // A failed expectation must not leave the rebuild waiting (it holds a connection the server's close waits for).
      cleanups.push(async () => {
        gated.release();
        await one.stop();
      });
      await gated.waiting;
      expect(await rebuildStatus(server.db)).toMatchObject({ done: first + 1, previous: identity(backendName, useLite) });
      const status = await runCli(server.dbUrl, ['search', 'reindex', '--status']);
      expect(status).toMatchObject({ code: 0, stderr: '' });
      expect(status.stdout).toContain(
        `Rebuilding with ${backendName} and the ${model.name} embedder (${model.dimensions} dimensions): ${first + 1} of ${order.length} items`,
      );
      expect(status.stdout).toContain(`Items not reached yet still have vectors of ${backendName} and the local:use-lite embedder (512 dimensions)`);

      const query = (id: string) => (id === bike ? 'bicycle repair' : 'physician appointment');
      expect(await found(gated, query(rebuilt))).toEqual([rebuilt]);
      // Found by meaning although the new model's vectors are of another size (384, USE-lite's 512).
      const stillFound = [waiting];
      expect(await found(gated, query(waiting))).toEqual(stillFound);
      // A second process: the rebuild is the first one's, and it answers from both models too.
      const secondIndex = backend.open(next);
      const two = startBackgroundReindex(server.db, secondIndex, identity(backendName, next), log, { embedderOf });
      cleanups.push(() => two.stop());
      await two.settled();
      expect(await found(secondIndex, query(waiting))).toEqual(stillFound);
      expect(await found(secondIndex, query(rebuilt))).toEqual([rebuilt]);
      await two.stop();

      gated.release();
      await one.settled();
      expect(await rebuildStatus(server.db)).toBeNull();
      expect((await runCli(server.dbUrl, ['search', 'reindex', '--status'])).stdout).toBe(
        `The index is built with ${backendName} and the ${model.name} embedder (${model.dimensions} dimensions); no rebuild is under way.\n`,
      );
      expect(olds[0]!.closed).toBe(true);
      const before = olds[0]!.embedded;
      expect(await found(gated, query(waiting))).toEqual([waiting]);
      expect(await found(gated, query(rebuilt))).toEqual([rebuilt]);
      expect(olds[0]!.embedded).toBe(before);
      await one.stop();
    }, 120_000);
  });
});

describe('a Meilisearch index written when every model shared one vector field', () => {
  const { server, ada } = useTestServer({ env: { EMBEDDINGS: 'none' } });
  let meili: MeiliServer;
  let client: Meilisearch;
  afterAll(async () => meili?.stop());
  beforeAll(async () => {
    meili = await startMeilisearch();
    client = new Meilisearch({ host: meili.url, apiKey: meili.apiKey });
  }, 60_000);

  it('answers from that field until a finished rebuild drops it, and a rebuild after a model change keeps it meanwhile', async () => {
    const a = new ConstantEmbedder('test:model-a');
    const b = new ConstantEmbedder('test:model-b');
    const { items } = await create_items(server.context(ada), { listId: 'notes', items: [{ title: 'Fix the bike' }, { title: 'Pay the gas bill' }] });
    const [bike, gas] = items.map((i) => i.id) as [string, string];
    const docs = await server.db('items').whereIn('id', [bike, gas]).select('id', 'owner_id', 'list_id', 'title', 'created_at');
    // The layout before fields were per model: one embedder named `default`, each document's vector in it.
    const uid = 'legacy_passages';
    const WAIT = { timeout: 60_000, interval: 50 };
    await client.createIndex(uid, { primaryKey: 'id' }).waitTask(WAIT);
    await client
      .index(uid)
      .updateSettings({ filterableAttributes: ['readerIds', 'itemId', 'createdAt'], embedders: { default: { source: 'userProvided', dimensions: 8 } } })
      .waitTask(WAIT);
    const [vector] = await a.embed(['x']);
    const added = await client
      .index(uid)
      .addDocuments(
        docs.map((d: { id: string; owner_id: string; list_id: string; title: string; created_at: Date }) => ({
          id: `${d.id}_0`,
          itemId: d.id,
          passageNo: 0,
          ownerId: d.owner_id,
          readerIds: [ada.userId],
          listId: d.list_id,
          listName: 'Notes',
          title: d.title,
          content: '',
          text: d.title,
          createdAt: new Date(d.created_at).getTime(),
          embedder: a.name,
          _vectors: { default: Array.from(vector!) },
        })),
      )
      .waitTask(WAIT);
    expect(added.status).toBe('succeeded');
    const embedders = async () => Object.keys((await client.index(uid).getEmbedders()) ?? {}).sort();
    const found = async (index: SearchIndex, text: string) => (await index.search({ readerId: ada.userId, text, limit: 10 })).map((h) => h.itemId).sort();
    const doc = (itemId: string, title: string): SearchDoc => ({
      itemId,
      ownerId: ada.userId,
      readerIds: [ada.userId],
      listId: 'notes',
      listName: 'Notes',
      title,
      body: null,
      createdAt: new Date(),
    });

    // The same model, after the upgrade: searches answer from the old field while the model's own is added beside it.
    const sameModel = new MeiliSearchIndex(client, a, { indexUid: uid });
    expect(await found(sameModel, 'zzz')).toEqual([bike, gas].sort());
    // An edited item moves to the new field (a write waits for it); the other is still found from the old one.
    await sameModel.upsert([doc(bike, 'Fix the bike')]);
    expect(await embedders()).toEqual(['default', 'm_test_model-a']);
    expect(await found(sameModel, 'zzz')).toEqual([bike, gas].sort());

    // A model change: until the rebuild is done, the items it has not reached are compared with the old model's vector.
    await reindex(server.db, sameModel, identity('meilisearch', a));
    expect(await embedders()).toEqual(['m_test_model-a']);
    await planReindex(server.db, identity('meilisearch', b));
    const changed = new MeiliSearchIndex(client, b, { indexUid: uid });
    await changed.setPrevious({ name: a.name, embedder: a });
    await changed.upsert([doc(gas, 'Pay the gas bill')]);
    expect(await embedders()).toEqual(['m_test_model-a', 'm_test_model-b']);
    expect(await found(changed, 'zzz')).toEqual([bike, gas].sort());
    // A process that does not know the new field yet still writes (it reads the fields again when refused).
    await sameModel.upsert([doc(bike, 'Fix the bike')]);
    await reindex(server.db, changed, identity('meilisearch', b));
    expect(await embedders()).toEqual(['m_test_model-b']);
    expect(await found(changed, 'zzz')).toEqual([bike, gas].sort());
  }, 120_000);
});
