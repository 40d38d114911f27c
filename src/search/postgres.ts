import type { Knex } from 'knex';
import type { Embedder, PreviousModel, SearchDoc, SearchHit, SearchIndex, SearchQuery } from '../core/search-index.js';
import { toPassages, type Passage } from './passages.js';
import { reuseOrEmbed, vectorKey } from './passage-vectors.js';
import { fusionOf, type FusionParams } from './fusion.js';
import { knownWords } from './known-words.js';
import { addCorrected, embedQuery, modelOf, queryModels, scoresPerModel, type QueryModel } from './query-models.js';
import { allowedTypos, contentWords, correctedText, editDistance, checkCorrections, topicOf, vocabularyWords } from './query-words.js';
import { dotWithCode, encodeVector } from './vector-codes.js';

/** Knobs of the Postgres index; defaults are what the benchmark chose. */
export interface PostgresSearchOptions {
  fusion?: FusionParams;
  /** Candidates shortlisted by sign-bit distance before exact cosine reranking. */
  semanticCandidates?: number;
  /** Candidates taken from the full-text leg. */
  keywordCandidates?: number;
}

/** Shortest query word that typo correction considers. */
const MIN_TYPO_LENGTH = 5;

interface CandidateRow {
  item_id: string;
  passage_no: number;
  text: string;
  keyword: number;
  rank: number;
  /** Computed in SQL only for passages without a code (indexed before codes existed). */
  cosine: number | null;
  code: Buffer | null;
  /** The embedder that made the passage's vector. */
  embedder: string | null;
}

/**
 * Hybrid search on plain Postgres 17 (pg_trgm + unaccent, no pgvector).
 *
 * - Keywords: `websearch_to_tsquery` over unaccented text, title weighted above body; the query's content words
 *   are OR-ed so that "find the note about car insurance" still matches a note that never says "find".
 * - Typos: each unknown query word is matched against the vocabulary (`search_words`, trigram index) and replaced
 *   by close words within Meilisearch-like edit limits; a fuzzy title match (`<%`) adds candidates too. Corrections
 *   are checked against a list of common words (checkCorrections in query-words.ts): a real word is not
 *   corrected, and a word no indexed text uses is corrected towards the list.
 * - Semantic: vectors are stored as real[], as a one-byte-a-dimension code (vector-codes.ts) and as their sign
 *   bits. xor + bit_count over the bits shortlists 300 passages, and only that shortlist is reranked, by the cosine
 *   of its codes, in Node; exact cosine over every passage in SQL was far slower (bench/README.md "Postgres
 *   semantic leg"). real[] stays the stored vector (reused when a passage is
 *   unchanged, and reranked in SQL for rows indexed before codes existed).
 * - Every candidate from any leg gets both signals and is scored by `fusedScores` (see fusion.ts).
 */
export class PostgresSearchIndex implements SearchIndex {
  readonly name = 'postgres';
  private readonly fusion: FusionParams;
  private readonly semanticCandidates: number;
  private readonly keywordCandidates: number;
  /** While a rebuild after a model change is unfinished: the model of the passages not rebuilt yet. */
  private previous: Embedder | null = null;

  constructor(
    private readonly knex: Knex,
    private readonly embedder: Embedder | null,
    options: PostgresSearchOptions = {},
  ) {
    this.fusion = options.fusion ?? fusionOf(embedder);
    this.semanticCandidates = options.semanticCandidates ?? 300;
    this.keywordCandidates = options.keywordCandidates ?? 100;
  }

  async upsert(docs: SearchDoc[], options: { reuseVectors?: boolean } = {}): Promise<void> {
    if (docs.length === 0) return;
    const rows = docs.flatMap((doc) => toPassages(doc.title, doc.body, doc.values).map((p) => ({ doc, passage: p })));
    // Embedding happens before the statement so no connection is held while the model runs.
    const vectors = this.embedder ? await this.vectorsOf(this.embedder, rows, options.reuseVectors === true) : null;
    const records = rows.map(({ doc, passage }, i) => {
      const vector = vectors?.[i];
      return {
        item_id: doc.itemId,
        passage_no: passage.no,
        owner_id: doc.ownerId,
        reader_ids: doc.readerIds,
        list_id: doc.listId,
        list_name: doc.listName,
        title: passage.title,
        content: passage.content,
        text: passage.text,
        embedding: vector ? Array.from(vector) : null,
        embedder: vector ? this.embedder!.name : null,
        code: vector ? encodeVector(vector).toString('base64') : null,
        bits: vector ? signBits(vector) : null,
        created_at: doc.createdAt.toISOString(),
      };
    });
    // Each reader's own vocabulary: a word is a typo correction only for someone who can read it.
    const words = new Set(
      rows.flatMap((r) => vocabularyWords(`${r.doc.listName} ${r.passage.text}`).flatMap((w) => r.doc.readerIds.map((reader) => `${reader} ${w}`))),
    );
    // One statement: the passages written over (or added), the item's passages beyond them removed,
    // the vocabulary added. Its DELETE sees the table as the statement began, so it never meets a
    // row the INSERT wrote; a concurrent indexer of the same item finds the rows and updates them.
    await this.knex.raw(
      `with fresh as (
         select * from jsonb_to_recordset(?::jsonb) as r(item_id uuid, passage_no int, owner_id uuid, reader_ids uuid[],
                list_id uuid, list_name text, title text, content text, text text, embedding real[], embedder text, code text, bits text,
                created_at timestamptz)
       ), written as (
         insert into search_passages
           (item_id, passage_no, owner_id, reader_ids, list_id, list_name, title, text, tsv, embedding, embedder, embedding_code, embedding_bits, created_at)
         select r.item_id, r.passage_no, r.owner_id, r.reader_ids, r.list_id, r.list_name, r.title, r.text,
                setweight(to_tsvector('english', unaccent(r.title)), 'A')
                || setweight(to_tsvector('english', unaccent(r.content)), 'B')
                || setweight(to_tsvector('english', unaccent(r.list_name)), 'D'),
                r.embedding, r.embedder, decode(r.code, 'base64'), r.bits::bit varying, r.created_at
           from fresh r
         on conflict (item_id, passage_no) do update set
           owner_id = excluded.owner_id, reader_ids = excluded.reader_ids, list_id = excluded.list_id,
           list_name = excluded.list_name, title = excluded.title, text = excluded.text, tsv = excluded.tsv,
           embedding = excluded.embedding, embedder = excluded.embedder, embedding_code = excluded.embedding_code,
           embedding_bits = excluded.embedding_bits, created_at = excluded.created_at
         returning 1
       ), stale as (
         delete from search_passages p
          where p.item_id = any(?::uuid[])
            and not exists (select 1 from fresh f where f.item_id = p.item_id and f.passage_no = p.passage_no)
         returning 1
       ), vocabulary as (
         insert into search_words (reader_id, word)
         select split_part(pair, ' ', 1)::uuid, split_part(pair, ' ', 2) from unnest(?::text[]) as pair
         on conflict do nothing
         returning 1
       )
       select (select count(*) from written) as written, (select count(*) from stale) as removed`,
      [JSON.stringify(records), docs.map((d) => d.itemId), [...words]],
    );
  }

  /**
   * The passages' vectors: with `reuse`, those stored for the same item, list name, title and
   * text (what a vector is computed from) are taken as they are; the rest are embedded.
   */
  private async vectorsOf(embedder: Embedder, rows: { doc: SearchDoc; passage: Passage }[], reuse: boolean): Promise<Float32Array[]> {
    const stored = new Map<string, Float32Array>();
    if (reuse) {
      const result = await this.knex.raw<{ rows: { item_id: string; list_name: string; title: string; text: string; embedding: number[] }[] }>(
        `select item_id, list_name, title, text, embedding from search_passages
          where item_id = any(?::uuid[]) and embedding is not null and embedder = ?`,
        [[...new Set(rows.map((r) => r.doc.itemId))], embedder.name],
      );
      for (const r of result.rows) stored.set(vectorKey(r.item_id, r.list_name, r.title, r.text), Float32Array.from(r.embedding));
    }
    return reuseOrEmbed(embedder, rows, stored);
  }

  /** Holds (or with null, lets go of) the model of passages a rebuild after a model change has not reached yet. */
  setPrevious(previous: PreviousModel | null): void {
    this.previous = previous?.embedder ?? null;
  }

  async remove(itemIds: string[]): Promise<void> {
    if (itemIds.length === 0) return;
    // search_words keeps the removed words: a stale word only widens a typo correction that then matches nothing.
    await this.knex.raw('delete from search_passages where item_id = any(?::uuid[])', [itemIds]);
  }

  async clear(): Promise<void> {
    await this.knex.raw('truncate search_passages, search_words');
  }

  async search(q: SearchQuery): Promise<SearchHit[]> {
    const mode = this.embedder ? (q.mode ?? 'hybrid') : 'keyword';
    const words = contentWords(q.text);
    if (words.length === 0) return [];
    const wanted = mode === 'keyword' ? [] : queryModels(this.embedder, this.fusion, this.previous);
    // The query as typed is embedded (in the models' worker threads) while typos are looked up in the database.
    const typed = wanted.length > 0 ? embedQuery(wanted, topicOf(q.text)) : null;
    typed?.catch(() => undefined);
    const { groups, unknown } =
      mode === 'semantic' ? { groups: words.map((w) => [w]), unknown: new Set<string>() } : await this.correctTypos(q.readerId, words, await knownWords());
    // The vector of a misspelt word is noise, but a "correction" of a real word is wrong (planet -> plant): like the
    // keyword side, which ORs a word with its corrections, hybrid search scores a passage against the query as
    // typed and as corrected and keeps the better cosine.
    const { models, vectors } = typed ? await typed : { models: [], vectors: [] };
    const corrected = correctedText(topicOf(q.text), groups);
    if (models.length > 0 && corrected !== topicOf(q.text)) await addCorrected(models, vectors, corrected);
    const rows = await this.candidates(q, mode, groups, unknown, models, vectors);
    return bestPerItem(rows, mode, models, this.fusion).slice(0, q.limit);
  }

  /**
   * For each query word not in the vocabulary, the word itself plus vocabulary words within its typo allowance.
   * (Asking instead whether the word's stem matches any passage failed: "babysiter" stems like "babysitting".)
   */
  private async correctTypos(
    readerId: string,
    words: string[],
    commonWords: ReadonlyMap<string, number> | null,
  ): Promise<{ groups: string[][]; unknown: Set<string> }> {
    // The reader's own vocabulary only: words of items they can read.
    const result = await this.knex.raw<{ rows: { word: string; candidate: string | null; known: boolean }[] }>(
      `select q.word, s.word as candidate, exists (select 1 from search_words k where k.reader_id = :reader and k.word = q.word) as known
         from unnest(:words::text[]) as q(word)
         left join lateral (
           select w.word from search_words w
            where w.reader_id = :reader and length(q.word) >= :minLength and w.word % q.word and w.word <> q.word
              and not exists (select 1 from search_words known where known.reader_id = :reader and known.word = q.word)
            order by similarity(w.word, q.word) desc
            limit 5
         ) s on true`,
      { words, minLength: MIN_TYPO_LENGTH, reader: readerId },
    );
    const groups = new Map(words.map((w) => [w, [w]]));
    const unknown = new Set<string>();
    for (const row of result.rows) {
      if (!row.known) unknown.add(row.word);
      if (row.candidate && editDistance(row.word, row.candidate) <= allowedTypos(row.word)) groups.get(row.word)?.push(row.candidate);
    }
    return { groups: checkCorrections([...groups.values()], (w) => unknown.has(w), commonWords), unknown };
  }

  private async candidates(
    q: SearchQuery,
    mode: 'hybrid' | 'keyword' | 'semantic',
    groups: string[][],
    unknown: Set<string>,
    models: QueryModel[],
    vectors: Float32Array[][],
  ): Promise<CandidateRow[]> {
    // websearch syntax ORs the alternatives of one word; each group is one content word of the query.
    const groupQueries = groups.map((alts) => alts.map(quoteWord).join(' or '));
    const anyWord = groupQueries.join(' or ');
    const scope = `reader_ids @> array[:reader]::uuid[]
        and (:after::timestamptz is null or created_at >= :after::timestamptz)
        and (:before::timestamptz is null or created_at < :before::timestamptz)`;
    const legs: string[] = [];
    if (mode !== 'semantic') {
      legs.push(`(select item_id, passage_no from search_passages, q
                   where ${scope} and tsv @@ q.any_word
                   order by ts_rank(tsv, q.any_word) desc limit :keywordCandidates)`);
      // Fuzzy title matching is the costliest leg (common words hit thousands of titles), and only adds what
      // vocabulary correction missed, so it runs only when some query word is unknown to the vocabulary.
      if (groups.some((g) => g.length > 1 || unknown.has(g[0]!))) {
        legs.push(`(select item_id, passage_no from search_passages
                     where ${scope} and :plain <% title
                     order by word_similarity(:plain, title) desc limit 20)`);
      }
    }
    // One shortlist per model, of the passages that model embedded: a vector is only ever compared with its own model's.
    const perModel: Record<string, unknown> = {};
    models.forEach((m, i) => {
      legs.push(`(select item_id, passage_no from search_passages
                   where ${scope} and embedder = :embedder${i} and embedding_bits is not null and bit_length(embedding_bits) = :dimensions${i}
                   order by least(bit_count(embedding_bits # :bits${i}::bit varying),
                                  coalesce(bit_count(embedding_bits # :corrected${i}::bit varying), 1 << 30))
                   limit :semanticCandidates)`);
      const [typed, corrected] = vectors[i]!;
      Object.assign(perModel, {
        [`embedder${i}`]: m.embedder.name,
        [`dimensions${i}`]: m.embedder.dimensions,
        [`bits${i}`]: signBits(typed!),
        [`corrected${i}`]: corrected ? signBits(corrected) : null,
      });
    });
    const [vector, vector2] = vectors[0] ?? [];
    const sql = `
      with q as (select websearch_to_tsquery('english', unaccent(:anyWord)) as any_word),
      terms as (
        select websearch_to_tsquery('english', unaccent(g)) as tsq
          from unnest(:groups::text[]) as g
         where numnode(websearch_to_tsquery('english', unaccent(g))) > 0
      ),
      cand as (${legs.join(' union ')})
      select p.item_id, p.passage_no, p.text, p.embedder,
             coalesce((select count(*) filter (where p.tsv @@ t.tsq)::float8 / nullif(count(*), 0) from terms t), 0) as keyword,
             ts_rank(p.tsv, q.any_word) as rank,
             case when :vector::real[] is null then null else p.embedding_code end as code,
             case when :vector::real[] is null or p.embedding_code is not null or p.embedding is null
                       or p.embedder is distinct from :model then null
                  else (select greatest(sum(a * b), coalesce(sum(a * c), -1))
                          from unnest(p.embedding, :vector::real[], :vector2::real[]) as v(a, b, c)) end as cosine
        from cand join search_passages p using (item_id, passage_no), q`;
    const result = await this.knex.raw<{ rows: CandidateRow[] }>(sql, {
      reader: q.readerId,
      after: q.after?.toISOString() ?? null,
      before: q.before?.toISOString() ?? null,
      anyWord,
      groups: groupQueries,
      plain: groups.map((g) => g[0]).join(' '),
      ...perModel,
      vector: vector ? Array.from(vector) : null,
      vector2: vector2 ? Array.from(vector2) : null,
      // Rows without a code (indexed before codes existed) are reranked in SQL, with the current model's vectors only.
      model: models[0]?.embedder.name ?? null,
      keywordCandidates: this.keywordCandidates,
      semanticCandidates: this.semanticCandidates,
    });
    for (const row of result.rows) {
      const model = modelOf(models, row.embedder);
      if (row.code) row.cosine = model >= 0 ? bestCosine(row.code, vectors[model]!) : null;
    }
    return result.rows;
  }
}

/** The better cosine of a passage's code with the query's vectors (as typed, as corrected); null for another model's vector. */
function bestCosine(code: Buffer, vectors: Float32Array[]): number | null {
  let best: number | null = null;
  for (const vector of vectors) {
    const cosine = dotWithCode(code, vector);
    if (cosine !== null && (best === null || cosine > best)) best = cosine;
  }
  return best;
}

/** Sign bit of each dimension as a '0'/'1' string, castable to Postgres `bit varying`. */
export function signBits(vector: Float32Array): string {
  let bits = '';
  for (const x of vector) bits += x > 0 ? '1' : '0';
  return bits;
}

// Quoting keeps a word that looks like websearch syntax ("or", "-x") a plain word.
function quoteWord(word: string): string {
  return `"${word.replace(/"/g, '')}"`;
}

/** Scores every candidate passage (with its own model's fusion), keeps the best passage per item and drops what is below the floor. */
function bestPerItem(rows: CandidateRow[], mode: 'hybrid' | 'keyword' | 'semantic', models: QueryModel[], fusion: FusionParams): SearchHit[] {
  const best = new Map<string, SearchHit>();
  const scores = scoresPerModel(
    rows.map((row) => ({ cosine: row.cosine, keyword: Number(row.keyword), rank: row.rank })),
    rows.map((row) => (row.cosine === null ? -1 : modelOf(models, row.embedder))),
    mode,
    models,
    fusion,
  );
  for (const [i, row] of rows.entries()) {
    const score = scores[i]!;
    if (score === null) continue;
    const current = best.get(row.item_id);
    if (!current || score > current.score) best.set(row.item_id, { itemId: row.item_id, score, passage: row.text });
  }
  return [...best.values()].sort((a, b) => b.score - a.score);
}
