import type { Meilisearch, SearchParams, Task } from 'meilisearch';
import type { Embedder, PreviousModel, SearchDoc, SearchHit, SearchIndex, SearchQuery } from '../core/search-index.js';
import { toPassages } from './passages.js';
import { reuseOrEmbed, vectorKey } from './passage-vectors.js';
import { allowedTypos, contentWords, correctedText, editDistance, foldWord, checkCorrections, topicOf } from './query-words.js';
import { fusionOf, type FusionParams } from './fusion.js';
import { knownWords } from './known-words.js';
import { dot } from './embedders/vectors.js';
import { addCorrected, embedQuery, modelOf, queryModels, scoresPerModel } from './query-models.js';

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
  _vectors?: { default: StoredVector };
}

/** A vector as written (bare) or as read back with `retrieveVectors` (`{ embeddings: [...] }`). */
type StoredVector = number[] | { embeddings: number[][] };

const EMBEDDER = 'default';
/** Writes wait until Meilisearch has applied them (so a search right after sees them); vector indexing can be slow. */
const WAIT = { timeout: 120_000, interval: 50 };

/**
 * Hybrid search on Meilisearch: one document per passage in one index, `distinct: itemId` so each item comes back
 * once with its best passage, `readerIds` filtered on every query, vectors computed by our embedder
 * (`userProvided`, the same vectors as the Postgres backend).
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
  /** While a rebuild after a model change is unfinished: the model of the passages not rebuilt yet. */
  private previous: PreviousModel | null = null;

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
    const rows = docs.flatMap((doc) => toPassages(doc.title, doc.body, doc.values).map((passage) => ({ doc, passage })));
    const stored =
      this.embedder && options.reuseVectors
        ? await this.storedVectors(
            docs.map((d) => d.itemId),
            this.embedder.dimensions,
          )
        : new Map();
    const vectors = this.embedder ? await reuseOrEmbed(this.embedder, rows, stored) : null;
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
      ...(vectors ? { embedder: this.embedder!.name, _vectors: { [EMBEDDER]: Array.from(vectors[i]!) } } : {}),
    }));
    const index = this.client.index<PassageDocument>(this.uid);
    // An edited item may now have fewer passages; tasks of one index run in order, so the delete lands first.
    await index.deleteDocuments({ filter: itemFilter(docs.map((d) => d.itemId)) });
    if (documents.length > 0) succeeded(await index.addDocuments(documents).waitTask(WAIT));
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
        const vector = storedVector((hit as Partial<PassageDocument>)._vectors?.[EMBEDDER]);
        if (vector && vector.length === dimensions && this.embedderOf(hit) === this.embedder?.name)
          stored.set(vectorKey(hit.itemId, hit.listName, hit.title, hit.text), vector);
      }
      if (result.results.length < page) return stored;
    }
  }

  /**
   * Holds (or with null, lets go of) the model of passages a rebuild after a model change has not reached yet. One
   * vector field serves every model here, so only a previous model of the current one's size still has vectors
   * (a change of size drops them): its passages are compared with its own query vector, never with the current one's.
   */
  setPrevious(previous: PreviousModel | null): void {
    this.previous = previous;
  }

  /** Who made a document's vector: as recorded, else (written before it was) the model the index held then. */
  private embedderOf(doc: { embedder?: string }): string | undefined {
    return doc.embedder ?? this.previous?.name ?? this.embedder?.name;
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
      attributesToRetrieve: ['itemId', 'text', 'embedder'],
      showMatchesPosition: true,
      // Drop the commonest query words first when not all of them match, rather than the last ones typed.
      matchingStrategy: 'frequency',
    };
    const held = this.previous?.embedder ?? null;
    const previous = held && this.embedder && held.dimensions === this.embedder.dimensions ? held : null;
    const topic = topicOf(q.text);
    const { models, vectors } = await embedQuery(mode === 'keyword' ? [] : queryModels(this.embedder, this.fusion, previous), topic);
    const vector = vectors[0]?.[0] ?? null;
    if (vector) {
      // Meilisearch retrieves candidates with the current model's vector; each is rescored with its own model's below.
      params.vector = Array.from(vector);
      params.retrieveVectors = true;
      params.hybrid = { embedder: EMBEDDER, semanticRatio: mode === 'semantic' ? 1 : this.semanticRatio };
    }
    // Filler words are left out of the keyword side, as in Postgres; the vector was made from the whole query.
    const result = await this.client.index<PassageDocument>(this.uid).search(words.join(' '), params);
    const matched = result.hits.map((hit) => matchedWords(hit.text, hit._matchesPosition?.text ?? [], words));
    // As in Postgres: the vector of a misspelt word is noise, so when Meilisearch matched a query word only through a
    // typo, the query is embedded again as corrected and each passage keeps the better of the two cosines.
    if (vector && mode === 'hybrid') {
      // A word no hit matched, even through a typo, is taken as one no indexed text uses (see checkCorrections).
      const unmatched = (word: string) => !matched.some((m) => m.has(word));
      const corrected = correctedText(topic, checkCorrections(typoCorrections(words, matched), unmatched, await knownWords()));
      if (corrected !== topic) await addCorrected(models, vectors, corrected);
    }
    // A passage is compared only with the query vectors of the model that made its vector.
    const model = result.hits.map((hit) => modelOf(models, this.embedderOf(hit)));
    const evidence = result.hits.map((hit, i) => {
      const own = model[i]! >= 0 ? vectors[model[i]!]! : [];
      const stored = own.length > 0 ? storedVector(hit._vectors?.[EMBEDDER]) : null;
      const cosine = stored && stored.length === own[0]!.length ? Math.max(...own.map((v) => dot(v, stored))) : null;
      return { cosine, keyword: matched[i]!.size / words.length, rank: 0 };
    });
    const scores = scoresPerModel(evidence, model, mode, models, this.fusion);
    const hits: SearchHit[] = [];
    result.hits.forEach((hit, i) => {
      const score = scores[i]!;
      if (score !== null) hits.push({ itemId: hit.itemId, score, passage: hit.text });
    });
    return hits.sort((a, b) => b.score - a.score).slice(0, q.limit);
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
        embedders: this.embedder ? { [EMBEDDER]: { source: 'userProvided', dimensions: this.embedder.dimensions } } : {},
      })
      .waitTask(WAIT);
    succeeded(settings);
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
function storedVector(v: StoredVector | undefined): Float32Array | null {
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
