import type { EnqueuedTask, Hit as MeiliHit, Meilisearch, SearchParams, Task } from 'meilisearch';
import type { Embedder, PreviousModel, SearchDoc, SearchHit, SearchIndex, SearchQuery } from '../core/search-index.js';
import { toPassages } from './passages.js';
import { reuseOrEmbed, vectorKey } from './passage-vectors.js';
import { allowedTypos, contentWords, correctedText, editDistance, foldWord, checkCorrections, topicOf } from './query-words.js';
import { fusionOf, type FusionParams } from './fusion.js';
import { knownWords } from './known-words.js';
import { dot } from './embedders/vectors.js';
import { addCorrected, embedQuery, modelOf, queryModels, scoresPerModel, type QueryModel } from './query-models.js';

/** Knobs of the Meilisearch index; defaults are what the benchmark chose. */
export interface MeiliSearchOptions {
  indexUid?: string;
  /** Share of the semantic side in Meilisearch's hybrid retrieval of candidates (0.2 chosen by the sweep: higher ratios let vector hits crowd out keyword hits, whose vectors are noise for misspelt queries). */
  semanticRatio?: number;
  /** Final scoring and floor, shared with the Postgres backend. */
  fusion?: FusionParams;
  /** Candidates fetched per result asked for. */
  candidatesPerResult?: number;
}

/** One passage as stored in Meilisearch. */
interface PassageDocument {
  id: string;
  itemId: string;
  passageNo: number;
  ownerId: string;
  readerIds: string[];
  listId: string;
  listName: string;
  title: string;
  content: string;
  text: string;
  /** Epoch milliseconds: Meilisearch filters numbers, not dates. */
  createdAt: number;
  /** The embedder that made the vector; absent in documents written before it was recorded (see `embedderOf`). */
  embedder?: string;
  /**
   * One vector, in the field of the embedder that made it (`fieldOf`), or in SHARED if written before fields were per
   * model; null in the index's other fields.
   */
  _vectors?: Record<string, StoredVector | null>;
}

/** A vector as written (bare) or as read back with `retrieveVectors` (`{ embeddings: [...] }`). */
type StoredVector = number[] | { embeddings: number[][] };
/** A candidate as Meilisearch returns it. */
type Hit = MeiliHit<PassageDocument>;

/**
 * The vector field every model shared before each model had its own: a model change of size dropped its vectors.
 * Still read (documents written then keep their vectors there) until a finished rebuild leaves it empty and drops it.
 */
const SHARED = 'default';

/** The vector field (a Meilisearch embedder) of one model's vectors: one per model, so a model change keeps the old ones. */
export function fieldOf(model: string): string {
  return `m_${model.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
/** Writes wait until Meilisearch has applied them (so a search right after sees them); vector indexing can be slow. */
const WAIT = { timeout: 120_000, interval: 50 };
/** Adding a model's field goes through every passage (12-13 s for 20,000 here), and only writes wait for it. */
const FIELD_WAIT = { timeout: 1_800_000, interval: 500 };

/**
 * Hybrid search on Meilisearch: one document per passage in one index, `distinct: itemId` so each item comes back
 * once with its best passage, `readerIds` filtered on every query, vectors computed by our embedder
 * (`userProvided`, the same vectors as the Postgres backend), each model's in a vector field of its own: while a rebuild
 * after a model change is unfinished, the old model's field keeps answering (`fieldOf`, `setPrevious`).
 *
 * Meilisearch's hybrid search (semanticRatio) retrieves the candidates, but its `_rankingScore` cannot carry the
 * floor: keyword and vector hits are scored on different scales (on the labeled set no threshold both kept
 * paraphrase answers and returned nothing for no-answer queries: see bench/search/README.md). So each candidate
 * is rescored with the same evidence and fusion as in Postgres (fusion.ts): cosine from its stored vector, and the
 * share of query words Meilisearch matched in it (typos and prefixes included) from `_matchesPosition`.
 */
export class MeiliSearchIndex implements SearchIndex {
  readonly name = 'meilisearch';
  private readonly uid: string;
  private readonly semanticRatio: number;
  private readonly fusion: FusionParams;
  private readonly candidatesPerResult: number;
  private setup: Promise<void> | null = null;
  /** Settles when this model's vector field is there (see fieldReady). */
  private adding: Promise<void> | null = null;
  /** While a rebuild after a model change is unfinished: the model of the passages not rebuilt yet. */
  private previous: PreviousModel | null = null;
  /** The index's vector fields and their sizes, as last read from Meilisearch (another process may drop one). */
  private fields = new Map<string, number>();

  constructor(
    private readonly client: Meilisearch,
    private readonly embedder: Embedder | null,
    options: MeiliSearchOptions = {},
  ) {
    this.uid = options.indexUid ?? 'search_passages';
    this.semanticRatio = options.semanticRatio ?? 0.2;
    this.fusion = options.fusion ?? fusionOf(embedder);
    this.candidatesPerResult = options.candidatesPerResult ?? 3;
  }

  async upsert(docs: SearchDoc[], options: { reuseVectors?: boolean } = {}): Promise<void> {
    if (docs.length === 0) return;
    await this.ready();
    await this.fieldReady();
    const rows = docs.flatMap((doc) => toPassages(doc.title, doc.body, doc.values).map((passage) => ({ doc, passage })));
    const stored =
      this.embedder && options.reuseVectors
        ? await this.storedVectors(
            docs.map((d) => d.itemId),
            this.embedder.dimensions,
          )
        : new Map();
    const vectors = this.embedder ? await reuseOrEmbed(this.embedder, rows, stored) : null;
    const current = this.embedder ? fieldOf(this.embedder.name) : null;
    const index = this.client.index<PassageDocument>(this.uid);
    for (let attempt = 0; ; attempt++) {
      // Meilisearch wants every vector field accounted for: the other models' fields get no vector.
      const none = Object.fromEntries([...this.fields.keys()].filter((f) => f !== current).map((f) => [f, null]));
      const documents: PassageDocument[] = rows.map(({ doc, passage }, i) => ({
        id: `${doc.itemId}_${passage.no}`,
        itemId: doc.itemId,
        passageNo: passage.no,
        ownerId: doc.ownerId,
        readerIds: doc.readerIds,
        listId: doc.listId,
        listName: doc.listName,
        title: passage.title,
        content: passage.content,
        text: passage.text,
        createdAt: doc.createdAt.getTime(),
        ...(vectors ? { embedder: this.embedder!.name } : {}),
        _vectors: { ...none, ...(vectors ? { [current!]: Array.from(vectors[i]!) } : {}) },
      }));
      // An edited item may now have fewer passages; tasks of one index run in order, so the delete lands first.
      await index.deleteDocuments({ filter: itemFilter(docs.map((d) => d.itemId)) });
      if (documents.length === 0) return;
      const added = await index.addDocuments(documents).waitTask(WAIT);
      if (added.status === 'succeeded') return;
      // Another process may have added a model's field since this one read them (see addField): read and write again.
      const known = [...this.fields.keys()].join();
      await this.readFields();
      if (attempt > 0 || [...this.fields.keys()].join() === known) succeeded(added);
    }
  }

  /** The vectors the index holds for these items' passages, by vectorKey (see reuseOrEmbed). */
  private async storedVectors(itemIds: string[], dimensions: number): Promise<Map<string, Float32Array>> {
    const stored = new Map<string, Float32Array>();
    const page = 1000;
    for (let offset = 0; ; offset += page) {
      const result = await this.client.index<PassageDocument>(this.uid).getDocuments({
        filter: itemFilter(itemIds),
        fields: ['itemId', 'listName', 'title', 'text', 'embedder'],
        retrieveVectors: true,
        limit: page,
        offset,
      });
      for (const hit of result.results) {
        const vector = this.vectorOf(hit as Partial<PassageDocument>);
        if (vector && vector.length === dimensions && this.embedderOf(hit) === this.embedder?.name)
          stored.set(vectorKey(hit.itemId, hit.listName, hit.title, hit.text), vector);
      }
      if (result.results.length < page) return stored;
    }
  }

  /**
   * Holds the model of passages a rebuild after a model change has not reached yet: its passages are compared with its
   * own query vector, never with the current one's. With null (the rebuild is finished, so every passage has the
   * current model's vector), drops the other models' vector fields.
   */
  async setPrevious(previous: PreviousModel | null): Promise<void> {
    this.previous = previous;
    if (previous) return;
    await this.ready();
    const current = this.embedder ? fieldOf(this.embedder.name) : null;
    const stale = [...this.fields.keys()].filter((field) => field !== current);
    if (stale.length === 0) return;
    succeeded(
      await this.client
        .index(this.uid)
        .updateEmbedders(Object.fromEntries(stale.map((field) => [field, null])))
        .waitTask(WAIT),
    );
    await this.readFields();
  }

  /** Who made a document's vector: as recorded, else (written before it was) the model the index held then. */
  private embedderOf(doc: { embedder?: string }): string | undefined {
    return doc.embedder ?? this.previous?.name ?? this.embedder?.name;
  }

  /** A document's vector: in its model's field, or in SHARED if it was written before fields were per model. */
  private vectorOf(doc: Partial<PassageDocument>): Float32Array | null {
    const model = this.embedderOf(doc);
    // A field a document has no vector in reads back as `{ embeddings: [] }`.
    return (model ? storedVector(doc._vectors?.[fieldOf(model)]) : null) ?? storedVector(doc._vectors?.[SHARED]);
  }

  /**
   * The vector searches of a query: each vector field the index has, with the query vector of the model whose
   * vectors it holds (SHARED: a model of its size, the previous one first, as it was written before the current one).
   */
  private vectorSearches(models: QueryModel[], vectors: Float32Array[][]): { field: string; vector: number[] }[] {
    const searches: { field: string; vector: number[] }[] = [];
    for (const [field, dimensions] of this.fields) {
      let model = models.findIndex((m) => fieldOf(m.embedder.name) === field);
      if (field === SHARED) model = [...models.keys()].reverse().find((i) => models[i]!.embedder.dimensions === dimensions) ?? -1;
      const vector = model >= 0 ? vectors[model]?.[0] : undefined;
      if (vector && vector.length === dimensions) searches.push({ field, vector: Array.from(vector) });
    }
    return searches;
  }

  async remove(itemIds: string[]): Promise<void> {
    if (itemIds.length === 0) return;
    await this.ready();
    succeeded(
      await this.client
        .index(this.uid)
        .deleteDocuments({ filter: itemFilter(itemIds) })
        .waitTask(WAIT),
    );
  }

  async clear(): Promise<void> {
    await this.ready();
    succeeded(await this.client.index(this.uid).deleteAllDocuments().waitTask(WAIT));
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    await this.ready();
    const mode = this.embedder ? (q.mode ?? 'hybrid') : 'keyword';
    const words = contentWords(q.text);
    if (words.length === 0) return [];
    const filter = [`readerIds = ${quote(q.readerId)}`];
    if (q.after) filter.push(`createdAt >= ${q.after.getTime()}`);
    if (q.before) filter.push(`createdAt < ${q.before.getTime()}`);
    const params: SearchParams = {
      filter: filter.join(' AND '),
      // Rescoring reorders, so fetch more than asked and cut after.
      limit: Math.max(30, q.limit * this.candidatesPerResult),
      distinct: 'itemId',
      attributesToRetrieve: ['id', 'itemId', 'text', 'embedder'],
      showMatchesPosition: true,
      // Drop the commonest query words first when not all of them match, rather than the last ones typed.
      matchingStrategy: 'frequency',
    };
    const topic = topicOf(q.text);
    const { models, vectors } = await embedQuery(mode === 'keyword' ? [] : queryModels(this.embedder, this.fusion, this.previous?.embedder ?? null), topic);
    const vector = vectors[0]?.[0] ?? null;
    // Filler words are left out of the keyword side, as in Postgres; the vectors were made from the whole query.
    const found = await this.candidates(words.join(' '), params, mode, models, vectors);
    // A passage found by two vector searches comes back twice; the first is kept (their evidence is the same).
    const seen = new Set<string>();
    const candidates = found.filter((hit) => !seen.has(hit.id) && seen.add(hit.id));
    const matched = candidates.map((hit) => matchedWords(hit.text, hit._matchesPosition?.text ?? [], words));
    // As in Postgres: the vector of a misspelt word is noise, so when Meilisearch matched a query word only through a
    // typo, the query is embedded again as corrected and each passage keeps the better of the two cosines.
    if (vector && mode === 'hybrid') {
      // A word no hit matched, even through a typo, is taken as one no indexed text uses (see checkCorrections).
      const unmatched = (word: string) => !matched.some((m) => m.has(word));
      const corrected = correctedText(topic, checkCorrections(typoCorrections(words, matched), unmatched, await knownWords()));
      if (corrected !== topic) await addCorrected(models, vectors, corrected);
    }
    // A passage is compared only with the query vectors of the model that made its vector.
    const model = candidates.map((hit) => modelOf(models, this.embedderOf(hit)));
    const evidence = candidates.map((hit, i) => {
      const own = model[i]! >= 0 ? vectors[model[i]!]! : [];
      const stored = own.length > 0 ? this.vectorOf(hit) : null;
      const cosine = stored && stored.length === own[0]!.length ? Math.max(...own.map((v) => dot(v, stored))) : null;
      return { cosine, keyword: matched[i]!.size / words.length, rank: 0 };
    });
    const scores = scoresPerModel(evidence, model, mode, models, this.fusion);
    // Each item once, with its best passage (two vector searches may each bring one of its passages).
    const best = new Map<string, SearchHit>();
    candidates.forEach((hit, i) => {
      const score = scores[i]!;
      if (score !== null && !(score <= (best.get(hit.itemId)?.score ?? -Infinity))) best.set(hit.itemId, { itemId: hit.itemId, score, passage: hit.text });
    });
    return [...best.values()].sort((a, b) => b.score - a.score).slice(0, q.limit);
  }

  /**
   * Meilisearch's candidates for a query: with the query vectors, one hybrid search per vector field (in one request),
   * each retrieving by its own model's vector; else one keyword search. A field another process dropped (its rebuild
   * finished) fails the request: the fields are read again and the searches retried once.
   */
  private async candidates(
    text: string,
    params: SearchParams,
    mode: 'hybrid' | 'keyword' | 'semantic',
    models: QueryModel[],
    vectors: Float32Array[][],
  ): Promise<Hit[]> {
    for (let attempt = 0; ; attempt++) {
      const searches = models.length > 0 ? this.vectorSearches(models, vectors) : [];
      const queries = searches.map(({ field, vector }) => ({
        ...params,
        indexUid: this.uid,
        q: text,
        vector,
        retrieveVectors: true,
        hybrid: { embedder: field, semanticRatio: mode === 'semantic' ? 1 : this.semanticRatio },
      }));
      try {
        if (queries.length === 0) return (await this.client.index<PassageDocument>(this.uid).search(text, params)).hits;
        const { results } = await this.client.multiSearch<{ queries: typeof queries }, PassageDocument>({ queries });
        return results.flatMap((r) => r.hits);
      } catch (err) {
        if (attempt > 0 || (err as { cause?: { code?: string } }).cause?.code !== 'invalid_search_embedder') throw err;
        await this.readFields();
      }
    }
  }

  private async readFields(): Promise<void> {
    const embedders = (await this.client.index(this.uid).getEmbedders()) ?? {};
    this.fields = new Map(
      Object.entries(embedders).flatMap(([field, e]) => (e && 'dimensions' in e && typeof e.dimensions === 'number' ? [[field, e.dimensions] as const] : [])),
    );
  }

  private ready(): Promise<void> {
    this.setup ??= this.configure().catch((err: unknown) => {
      this.setup = null;
      throw err;
    });
    return this.setup;
  }

  private async configure(): Promise<void> {
    const created = await this.client.createIndex(this.uid, { primaryKey: 'id' }).waitTask(WAIT);
    if (created.error?.code !== 'index_already_exists') succeeded(created);
    const settings = await this.client
      .index(this.uid)
      .updateSettings({
        searchableAttributes: ['title', 'content', 'listName'],
        filterableAttributes: ['readerIds', 'itemId', 'createdAt'],
      })
      .waitTask(WAIT);
    succeeded(settings);
    await this.readFields();
    // Searches need not wait for this model's field (they answer from the fields there are); writes do.
    this.fieldReady().catch(() => undefined);
  }

  /**
   * This model's vector field, added if the index lacks it (the first start after a model change). Other models'
   * fields are kept: a rebuild after a model change answers from them until it is finished. Measured: 12-13 s to add
   * a field to an index of 20,000 passages, so searches do not wait for it (105 answered meanwhile, p50 112 ms).
   */
  private fieldReady(): Promise<void> {
    if (!this.embedder) return Promise.resolve();
    const field = fieldOf(this.embedder.name);
    this.adding ??= (this.fields.has(field) ? Promise.resolve() : this.addField(field, this.embedder.dimensions)).catch((err: unknown) => {
      this.adding = null;
      throw err;
    });
    return this.adding;
  }

  /**
   * Adds a model's vector field. Meilisearch refuses a field that a stored document gives no vector for, so every
   * document is first given none (`null`, which it keeps apart from its other fields' vectors); one written meanwhile
   * by a process that did not know the field yet fails the addition, and the whole is tried again.
   */
  private async addField(field: string, dimensions: number): Promise<void> {
    const index = this.client.index<PassageDocument>(this.uid);
    for (let attempt = 1; ; attempt++) {
      let last: EnqueuedTask | null = null;
      const page = 1000;
      for (let offset = 0; ; offset += page) {
        const { results } = await index.getDocuments({ fields: ['id'], limit: page, offset });
        if (results.length > 0) last = await index.updateDocuments(results.map((d) => ({ id: d.id, _vectors: { [field]: null } })));
        if (results.length < page) break;
      }
      // Tasks of one index run in order: when the last update is done, all are.
      if (last) succeeded(await this.client.tasks.waitForTask(last, FIELD_WAIT));
      const added = await index.updateEmbedders({ [field]: { source: 'userProvided', dimensions } }).waitTask(FIELD_WAIT);
      if (added.status === 'succeeded' || attempt === 3) succeeded(added);
      if (added.status === 'succeeded') break;
    }
    await this.readFields();
  }
}

// Meilisearch reports a failed task as a result, not as an error.
function succeeded(task: Task): void {
  if (task.status !== 'succeeded') throw new Error(`meilisearch task ${task.uid} (${task.type}) ${task.status}: ${task.error?.message ?? ''}`);
}

/** The query words Meilisearch matched in the passage text (typos and prefixes included), each with the text it matched. */
function matchedWords(text: string, matches: { start: number; length: number }[], words: string[]): Map<string, string[]> {
  // Meilisearch reports positions in UTF-8 bytes.
  const bytes = Buffer.from(text, 'utf8');
  const found = new Map<string, string[]>();
  for (const m of matches) {
    const token = foldWord(bytes.subarray(m.start, m.start + m.length).toString('utf8'));
    for (const word of words) {
      if (token === word || token.startsWith(word) || editDistance(token, word) <= allowedTypos(word)) {
        found.set(word, [...(found.get(word) ?? []), token]);
      }
    }
  }
  return found;
}

/** Per query word, the word plus the differently spelt text it matched most often (if any): its likely correction. */
function typoCorrections(words: string[], matched: Map<string, string[]>[]): string[][] {
  return words.map((word) => {
    const counts = new Map<string, number>();
    for (const tokens of matched) {
      for (const t of tokens.get(word) ?? []) if (t !== word && !t.startsWith(word)) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    const best = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
    return best ? [word, best[0]] : [word];
  });
}

/** The stored vector as Meilisearch returns it (`retrieveVectors`): bare, or wrapped as `{ embeddings: [...] }`. */
function storedVector(v: StoredVector | null | undefined): Float32Array | null {
  if (!v) return null;
  const values = Array.isArray(v) ? v : v.embeddings[0];
  return values ? Float32Array.from(values) : null;
}

function itemFilter(itemIds: string[]): string {
  return `itemId IN [${itemIds.map(quote).join(', ')}]`;
}

// Ids come from our own database, but a filter is a query language, so quote rather than trust.
function quote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
