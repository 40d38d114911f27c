/**
 * Latency of search at scale: 100,000 items of 50 people in one index, 20,000 of them owned by the searcher (the
 * 330 labeled items plus generated tasks), then the labeled queries in each mode. Reports p50/p95 end to end (query
 * embedding included) per backend and writes bench/out/search-latency.json.
 *
 *   npx tsx bench/search/latency.ts [--backends postgres,meilisearch] [--items 100000] [--mine 20000]
 *
 * Backend `postgres-sql-rerank` is the Postgres index with its rows' vector codes removed, so the shortlist is
 * reranked over real[] in SQL as before codes existed: run it beside `postgres` for the ratio.
 *
 * Generated items get random unit vectors instead of model output: the cost of a search does not depend on what
 * the vectors mean, and embedding 100,000 texts would take this machine ~20 minutes. Meilisearch is the
 * devDependency's binary on a free port; it builds its vector graph while documents arrive, which is the slow part
 * of this run (minutes at 100,000 on 2 cores), so `--items`/`--mine` scale both backends down together.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { Meilisearch } from 'meilisearch';
import { defaultLocalModel } from '../../src/search/embedders/index.js';
import { LocalEmbedder } from '../../src/search/embedders/local.js';
import { normalize } from '../../src/search/embedders/vectors.js';
import { PostgresSearchIndex, signBits } from '../../src/search/postgres.js';
import { encodeVector } from '../../src/search/vector-codes.js';
import { migrate } from '../../src/store/db.js';
import { startEmbeddedPostgres } from '../../src/store/embedded/index.js';
import { vocabularyWords } from '../../src/search/query-words.js';
import { fieldOf, MeiliSearchIndex } from '../../src/search/meili.js';
import type { SearchDoc, SearchIndex } from '../../src/core/search-index.js';
import { startMeilisearch } from '../../test/support/meili.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const WORDS = (
  'buy call book pay fix clean renew order send check email plan clear paint water return cancel sort update ' +
  'milk bread eggs dentist doctor car bike boiler tap gutter garden shed fence invoice report meeting school nursery ' +
  'passport ticket hotel flight train present card birthday party recipe pasta curry soup cake rent tax bank loan ' +
  'insurance quote plumber electrician window door roof kitchen bathroom bedroom laptop phone printer router'
).split(' ');

interface LabeledSet {
  lists: { id: string; name: string }[];
  items: { id: string; list: string; title: string; body: string | null; values?: string; created: string }[];
  queries: { text: string }[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const total = Number(flagValue(args, '--items') ?? 100_000);
  const mine = Number(flagValue(args, '--mine') ?? 20_000);
  const backends = (flagValue(args, '--backends') ?? 'postgres').split(',');
  const set = JSON.parse(await fs.readFile(path.join(here, 'labeled.json'), 'utf8')) as LabeledSet;
  const reader = randomUUID();
  const embedder = new LocalEmbedder(defaultLocalModel());
  const lists = new Map(set.lists.map((l) => [l.id, l.name]));
  const labeled: SearchDoc[] = set.items.map((it) => ({
    itemId: randomUUID(),
    ownerId: reader,
    readerIds: [reader],
    listId: reader,
    listName: lists.get(it.list) ?? '',
    title: it.title,
    body: it.body,
    values: it.values,
    createdAt: new Date(it.created),
  }));
  const others = Array.from({ length: 49 }, () => randomUUID());
  /** The generated items in chunks of 2,000, the first `mine` of them (after the labeled ones) the searcher's. */
  const chunks = function* () {
    for (let done = set.items.length; done < total; done += 2000) {
      yield Array.from({ length: Math.min(2000, total - done) }, (_, i) =>
        generated(done + i < mine ? reader : others[(done + i) % others.length]!, embedder.dimensions),
      );
    }
  };
  const report: Record<string, unknown> = { date: new Date().toISOString(), items: total, readable: mine };
  for (const backend of backends) {
    const env = backend === 'meilisearch' ? await meiliBackend(embedder) : await postgresBackend(embedder, backend === 'postgres-sql-rerank');
    try {
      await env.index.upsert(labeled);
      const started = performance.now();
      for (const rows of chunks()) await env.load(rows);
      const loadSeconds = (performance.now() - started) / 1000;
      console.log(`\n== ${backend}: ${await env.describe(reader)}; generated in ${loadSeconds.toFixed(0)} s`);
      await embedder.warmUp();
      const entry: Record<string, unknown> = { loadSeconds };
      const texts = set.queries.map((q) => q.text);
      for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
        const timing = await timeQueries(texts, (text) => env.index.search({ readerId: reader, text, limit: 10, mode }));
        console.log(`${mode.padEnd(8)} p50 ${timing.p50Ms.toFixed(1)} ms  p95 ${timing.p95Ms.toFixed(1)} ms  (${timing.searches} searches)`);
        entry[mode] = timing;
      }
      if (env.direct) {
        const timing = await timeQueries(texts, (text) => env.direct!(reader, text));
        const ratio = (entry.hybrid as Timing).p95Ms / timing.p95Ms;
        console.log(
          `direct   p50 ${timing.p50Ms.toFixed(1)} ms  p95 ${timing.p95Ms.toFixed(1)} ms  (embed, then one hybrid query straight to the engine; the backend's hybrid p95 is ${ratio.toFixed(2)}x that)`,
        );
        entry.direct = { ...timing, hybridP95Ratio: ratio };
      }
      report[backend] = entry;
    } finally {
      await env.close();
    }
  }
  await fs.mkdir(path.join(here, '..', 'out'), { recursive: true });
  await fs.writeFile(path.join(here, '..', 'out', 'search-latency.json'), JSON.stringify(report, null, 2));
}

interface Timing {
  p50Ms: number;
  p95Ms: number;
  searches: number;
}

/** Runs every query three times, one after another, and gives the p50 and p95 of their wall-clock times. */
async function timeQueries(texts: string[], run: (text: string) => Promise<unknown>): Promise<Timing> {
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const text of texts) {
      const t = performance.now();
      await run(text);
      times.push(performance.now() - t);
    }
  }
  times.sort((a, b) => a - b);
  return { p50Ms: times[Math.floor(times.length * 0.5)]!, p95Ms: times[Math.floor(times.length * 0.95)]!, searches: times.length };
}

interface LatencyBackend {
  index: SearchIndex;
  /** Adds generated items straight to the store, with their ready-made vectors. */
  load(rows: ReturnType<typeof generated>[]): Promise<void>;
  describe(reader: string): Promise<string>;
  /** The same hybrid search asked of the engine straight, as a caller without the service would: embed, then one query. */
  direct?(reader: string, text: string): Promise<void>;
  close(): Promise<void>;
}

/** `sqlRerank`: passages without vector codes, so the shortlist is reranked over real[] in SQL (as before codes existed). */
async function postgresBackend(embedder: LocalEmbedder, sqlRerank = false): Promise<LatencyBackend> {
  const server = process.env.DATABASE_URL ? null : await startEmbeddedPostgres({ dataDir: path.join(here, '..', '..', '.tmp', 'bench-pg') });
  const adminUrl = process.env.DATABASE_URL ?? server!.url;
  const database = `search_latency_${Date.now()}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl });
  await admin.raw(`create database ${database}`);
  await admin.destroy();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const knex = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 4 } });
  await migrate(knex);
  return {
    index: new PostgresSearchIndex(knex, embedder),
    load: (rows) => insertGenerated(knex, rows),
    async describe(reader) {
      if (sqlRerank) await knex.raw('update search_passages set embedding_code = null');
      await knex.raw('vacuum analyze search_passages');
      const count = await knex.raw<{ rows: { all: string; mine: string }[] }>(
        'select count(*) as all, count(*) filter (where reader_ids @> array[?]::uuid[]) as mine from search_passages',
        [reader],
      );
      return `${count.rows[0]!.all} passages, ${count.rows[0]!.mine} readable by the searcher`;
    },
    async close() {
      await knex.destroy();
      const cleanup = knexFactory({ client: 'pg', connection: adminUrl });
      await cleanup.raw(`drop database if exists ${database} with (force)`);
      await cleanup.destroy();
      await server?.stop();
    },
  };
}

async function meiliBackend(embedder: LocalEmbedder): Promise<LatencyBackend> {
  const server = await startMeilisearch();
  const client = new Meilisearch({ host: server.url, apiKey: server.apiKey });
  const uid = 'search_passages';
  const index = new MeiliSearchIndex(client, embedder, { indexUid: uid });
  // A first search sets the index up, its model's vector field included, before documents are loaded into it.
  await index.search({ readerId: 'nobody', text: 'set up', limit: 1 });
  return {
    index,
    async load(rows) {
      const task = await client
        .index(uid)
        .addDocuments(
          rows.map((r) => ({
            id: `${r.item_id}_0`,
            itemId: r.item_id,
            passageNo: 0,
            ownerId: r.owner,
            readerIds: [r.owner],
            listId: r.owner,
            listName: 'To do',
            title: r.title,
            content: r.content,
            text: `${r.title}\n${r.content}`,
            createdAt: Date.now() - Math.random() * 700 * 86_400_000,
            _vectors: { [fieldOf(embedder.name)]: r.embedding },
          })),
        )
        .waitTask({ timeout: 1_800_000, interval: 200 });
      if (task.status !== 'succeeded') throw new Error(`meilisearch task ${task.uid} ${task.status}: ${task.error?.message ?? ''}`);
    },
    async describe(reader) {
      const all = await client.index(uid).getStats();
      // A search's hit count stops at maxTotalHits (1,000); a documents read counts them all.
      const readable = await client.index(uid).getDocuments({ filter: `readerIds = "${reader}"`, limit: 1 });
      return `${all.numberOfDocuments} passages, ${readable.total} readable by the searcher`;
    },
    async direct(reader, text) {
      const [vector] = await embedder.embed([text]);
      await client.index(uid).search(text, {
        filter: `readerIds = "${reader}"`,
        limit: 10,
        vector: Array.from(vector!),
        hybrid: { embedder: fieldOf(embedder.name), semanticRatio: 0.2 },
      });
    },
    close: () => server.stop(),
  };
}

/** A task-like item with a random unit vector. */
function generated(owner: string, dimensions: number) {
  const words = Array.from({ length: 3 + Math.floor(Math.random() * 4) }, () => WORDS[Math.floor(Math.random() * WORDS.length)]!);
  const title = words.slice(0, 3).join(' ');
  const vector = normalize(Float32Array.from({ length: dimensions }, () => Math.random() - 0.5));
  return {
    item_id: randomUUID(),
    owner,
    title,
    content: words.join(' '),
    embedding: Array.from(vector),
    code: encodeVector(vector).toString('base64'),
    bits: signBits(vector),
  };
}

async function insertGenerated(knex: Knex, rows: ReturnType<typeof generated>[]): Promise<void> {
  await knex.raw(
    `insert into search_passages (item_id, passage_no, owner_id, reader_ids, list_id, list_name, title, text, tsv, embedding, embedding_code, embedding_bits, created_at)
     select r.item_id, 0, r.owner, array[r.owner], r.owner, 'To do', r.title, r.title || E'\\n' || r.content,
            setweight(to_tsvector('english', r.title), 'A') || setweight(to_tsvector('english', r.content), 'B'),
            r.embedding, decode(r.code, 'base64'), r.bits::bit varying, now() - random() * interval '700 days'
       from jsonb_to_recordset(?::jsonb) as r(item_id uuid, owner uuid, title text, content text, embedding real[], code text, bits text)`,
    [JSON.stringify(rows)],
  );
  // The vocabulary is kept per reader (search_words.reader_id), as the index writes it.
  const pairs = [...new Set(rows.flatMap((r) => vocabularyWords(r.content).map((w) => `${r.owner} ${w}`)))];
  await knex.raw(
    `insert into search_words (reader_id, word)
     select split_part(pair, ' ', 1)::uuid, split_part(pair, ' ', 2) from unnest(?::text[]) as pair on conflict do nothing`,
    [pairs],
  );
}

function flagValue(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
