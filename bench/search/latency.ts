/**
 * Latency of Postgres search at scale: 100,000 items of 50 people in one table, 20,000 of them owned by the
 * searcher (the 330 labeled items plus generated tasks), then the labeled queries in each mode. Reports p50/p95
 * end to end (query embedding included) and writes bench/out/search-latency.json.
 *
 *   npx tsx bench/search/latency.ts [--items 100000] [--mine 20000]
 *
 * Generated items get random unit vectors instead of model output: the cost of a search does not depend on what
 * the vectors mean, and embedding 100,000 texts would take this machine ~20 minutes.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { LocalEmbedder } from '../../src/search/embedders/local.js';
import { normalize } from '../../src/search/embedders/vectors.js';
import { PostgresSearchIndex, signBits } from '../../src/search/postgres.js';
import { migrate } from '../../src/store/db.js';
import { startEmbeddedPostgres } from '../../src/store/embedded.js';
import { vocabularyWords } from '../../src/search/query-words.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const WORDS = ('buy call book pay fix clean renew order send check email plan clear paint water return cancel sort update ' +
  'milk bread eggs dentist doctor car bike boiler tap gutter garden shed fence invoice report meeting school nursery ' +
  'passport ticket hotel flight train present card birthday party recipe pasta curry soup cake rent tax bank loan ' +
  'insurance quote plumber electrician window door roof kitchen bathroom bedroom laptop phone printer router').split(' ');

interface LabeledSet {
  lists: { id: string; name: string }[];
  items: { id: string; list: string; title: string; body: string | null; values?: string; created: string }[];
  queries: { text: string }[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const total = Number(valueOf(args, '--items') ?? 100_000);
  const mine = Number(valueOf(args, '--mine') ?? 20_000);
  const server = process.env.DATABASE_URL ? null : await startEmbeddedPostgres({ dataDir: path.join(here, '..', '..', '.tmp', 'bench-pg') });
  const adminUrl = process.env.DATABASE_URL ?? server!.url;
  const database = `search_latency_${Date.now()}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl });
  await admin.raw(`create database ${database}`);
  await admin.destroy();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const knex = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 4 } });
  try {
    await migrate(knex);
    const set = JSON.parse(await fs.readFile(path.join(here, 'labeled.json'), 'utf8')) as LabeledSet;
    const reader = randomUUID();
    const embedder = new LocalEmbedder();
    const index = new PostgresSearchIndex(knex, embedder);
    const lists = new Map(set.lists.map((l) => [l.id, l.name]));
    await index.upsert(set.items.map((it) => ({
      itemId: randomUUID(), ownerId: reader, readerIds: [reader], listId: reader, listName: lists.get(it.list) ?? '',
      title: it.title, body: it.body, values: it.values, createdAt: new Date(it.created),
    })));
    const started = performance.now();
    const others = Array.from({ length: 49 }, () => randomUUID());
    for (let done = set.items.length; done < total; done += 2000) {
      const rows = Array.from({ length: Math.min(2000, total - done) }, (_, i) => generated(done + i < mine ? reader : others[(done + i) % others.length]!));
      await insertGenerated(knex, rows);
    }
    await knex.raw('analyze search_passages');
    const loadSeconds = (performance.now() - started) / 1000;
    const count = await knex.raw<{ rows: { all: string; mine: string }[] }>(
      'select count(*) as all, count(*) filter (where reader_ids @> array[?]::uuid[]) as mine from search_passages', [reader]);
    console.log(`table: ${count.rows[0]!.all} passages, ${count.rows[0]!.mine} readable by the searcher; generated in ${loadSeconds.toFixed(0)} s`);

    await embedder.warmUp();
    const report: Record<string, unknown> = { date: new Date().toISOString(), passages: Number(count.rows[0]!.all), readable: Number(count.rows[0]!.mine) };
    for (const mode of ['keyword', 'semantic', 'hybrid'] as const) {
      const times: number[] = [];
      for (let round = 0; round < 3; round++) {
        for (const q of set.queries) {
          const t = performance.now();
          await index.search({ readerId: reader, text: q.text, limit: 10, mode });
          times.push(performance.now() - t);
        }
      }
      times.sort((a, b) => a - b);
      const p50 = times[Math.floor(times.length * 0.5)]!;
      const p95 = times[Math.floor(times.length * 0.95)]!;
      console.log(`${mode.padEnd(8)} p50 ${p50.toFixed(1)} ms  p95 ${p95.toFixed(1)} ms  (${times.length} searches)`);
      report[mode] = { p50Ms: p50, p95Ms: p95, searches: times.length };
    }
    await fs.mkdir(path.join(here, '..', 'out'), { recursive: true });
    await fs.writeFile(path.join(here, '..', 'out', 'search-latency.json'), JSON.stringify(report, null, 2));
  } finally {
    await knex.destroy();
    const cleanup = knexFactory({ client: 'pg', connection: adminUrl });
    await cleanup.raw(`drop database if exists ${database} with (force)`);
    await cleanup.destroy();
    await server?.stop();
  }
}

/** A task-like item with a random unit vector. */
function generated(owner: string) {
  const words = Array.from({ length: 3 + Math.floor(Math.random() * 4) }, () => WORDS[Math.floor(Math.random() * WORDS.length)]!);
  const title = words.slice(0, 3).join(' ');
  const vector = normalize(Float32Array.from({ length: 512 }, () => Math.random() - 0.5));
  return { item_id: randomUUID(), owner, title, content: words.join(' '), embedding: Array.from(vector), bits: signBits(vector) };
}

async function insertGenerated(knex: Knex, rows: ReturnType<typeof generated>[]): Promise<void> {
  await knex.raw(
    `insert into search_passages (item_id, passage_no, owner_id, reader_ids, list_id, list_name, title, text, tsv, embedding, embedding_bits, created_at)
     select r.item_id, 0, r.owner, array[r.owner], r.owner, 'To do', r.title, r.title || E'\\n' || r.content,
            setweight(to_tsvector('english', r.title), 'A') || setweight(to_tsvector('english', r.content), 'B'),
            r.embedding, r.bits::bit varying, now() - random() * interval '700 days'
       from jsonb_to_recordset(?::jsonb) as r(item_id uuid, owner uuid, title text, content text, embedding real[], bits text)`,
    [JSON.stringify(rows)],
  );
  const words = [...new Set(rows.flatMap((r) => vocabularyWords(r.content)))];
  await knex.raw('insert into search_words (word) select unnest(?::text[]) on conflict do nothing', [words]);
}

function valueOf(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
