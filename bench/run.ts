/**
 * `make bench`: seeds 10,000- and 100,000-item workspaces on a fresh embedded Postgres, runs
 * listkeeper (the built server) and the ceiling (bench/ceiling.ts: the same SQL, bare) side
 * by side in one run, loads both with autocannon at 1, 8 and 32 connections, and prints one
 * table of throughput, p50, p99 and the ratio to the ceiling; also growth 10k → 100k, memory,
 * start time and two processes on one database. Writes bench/out/latest.json.
 * Ratios, not absolute numbers, are the result: both sides share the same noisy machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { startEmbeddedPostgres } from '../src/store/embedded/index.js';
import { createDb, migrate } from '../src/store/db.js';
import { seedWorkspace, type SeedResult } from '../src/domain/seed.js';
import { SQL } from './ceiling-sql.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = [1, 8, 32];
const say = (line: string) => process.stderr.write(`[bench] ${line}\n`);

interface Row {
  operation: string;
  data: string;
  connections: number;
  target: 'listkeeper' | 'ceiling';
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, child: ChildProcess, timeoutMs = 60000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (
      await fetch(url)
        .then((r) => r.ok)
        .catch(() => false)
    )
      return performance.now() - started;
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    await sleep(25);
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

function startProcess(args: string[], env: NodeJS.ProcessEnv, pipeOut = false): ChildProcess {
  return spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', pipeOut ? 'pipe' : 'ignore', 'inherit'] });
}

/** Waits until the child's stdout (its log) contains `text`. */
async function waitForLine(child: ChildProcess, text: string, timeoutMs: number): Promise<void> {
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${text}' in the log after ${timeoutMs} ms`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-10000);
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before logging '${text}'`)));
  });
}

/**
 * Waits (with progress) until the server has indexed the seeded items: the seed writes past the
 * outbox, so the server finds unindexed items at start and rebuilds the index in the background
 * (a `reindex:all` checkpoint in search_state, removed when done); then the outbox is empty.
 */
async function waitForIndex(db: Knex, timeoutMs = 15 * 60 * 1000, quiet = false): Promise<number> {
  const started = performance.now();
  const backlog = async () => {
    const rebuild = (await db('search_state').where({ key: 'reindex:all' }).first()) as { value: { done: number } | string } | undefined;
    const outbox = Number(((await db('outbox').count('* as n').first()) as { n: string }).n);
    const done = rebuild ? (typeof rebuild.value === 'string' ? (JSON.parse(rebuild.value) as { done: number }) : rebuild.value).done : null;
    return { rebuilding: rebuild !== undefined, done, outbox };
  };
  let lastSaid = 0;
  for (let b = await backlog(); b.rebuilding || b.outbox > 0; b = await backlog()) {
    if (performance.now() - started > timeoutMs) throw new Error(`the search index has not caught up after ${timeoutMs / 60000} minutes`);
    if (performance.now() - lastSaid > 10000) {
      say(
        `indexing the seeded items: ${b.rebuilding ? `rebuild at ${(b.done ?? 0).toLocaleString('en')} items, ` : ''}${b.outbox.toLocaleString('en')} outbox rows`,
      );
      lastSaid = performance.now();
    }
    await sleep(1000);
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  if (!quiet || seconds > 0) say(`index caught up in ${seconds} s`);
  return seconds;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

interface Case {
  operation: string;
  ours(ws: Workspace): autocannon.Options;
  ceiling(ws: Workspace): autocannon.Options;
  /** The ceiling's statement for this read, for EXPLAIN ANALYZE when it grows slower with the data. */
  plan?(ws: Workspace): { sql: string; params: unknown[] };
}
interface Workspace {
  label: string;
  seed: SeedResult;
  itemIds: string[];
  readOption: string;
  base: string;
  ceilingBase: string;
}

let counter = 0;
const json = { 'content-type': 'application/json' };
const auth = (ws: Workspace) => ({ authorization: `Bearer ${ws.seed.key}`, ...json });
const rotate = <T>(xs: T[]) => xs[counter++ % xs.length]!;
const titles = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `bench ${counter}-${i}` }));

const cases: Case[] = [
  {
    operation: 'get_item',
    ours: (ws) => ({ url: ws.base, headers: auth(ws), requests: [{ setupRequest: (r: any) => ({ ...r, path: `/api/v1/items/${rotate(ws.itemIds)}` }) }] }),
    ceiling: (ws) => ({ url: ws.ceilingBase, requests: [{ setupRequest: (r: any) => ({ ...r, path: `/items/${rotate(ws.itemIds)}` }) }] }),
    plan: (ws) => ({ sql: SQL.getItem, params: [ws.itemIds[0]] }),
  },
  ...[50, 200].map((limit) => ({
    operation: `list_items (${limit})`,
    ours: (ws: Workspace) => ({ url: `${ws.base}/api/v1/items?listId=${ws.seed.lists.tasks}&limit=${limit}`, headers: auth(ws) }),
    ceiling: (ws: Workspace) => ({ url: `${ws.ceilingBase}/items?listId=${ws.seed.lists.tasks}&limit=${limit}` }),
    plan: (ws: Workspace) => ({ sql: SQL.listItems, params: [ws.seed.lists.tasks, limit] }),
  })),
  ...[1, 100].map((n) => ({
    operation: `create_items (${n})`,
    ours: (ws: Workspace) => ({
      url: `${ws.base}/api/v1/items`,
      method: 'POST' as const,
      headers: auth(ws),
      requests: [{ setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ listId: ws.seed.lists.projects, items: titles(n) }) }) }],
    }),
    ceiling: (ws: Workspace) => ({
      url: `${ws.ceilingBase}/items`,
      method: 'POST' as const,
      headers: json,
      requests: [{ setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ ownerId: ws.seed.userId, listId: ws.seed.lists.projects, items: titles(n) }) }) }],
    }),
  })),
  ...[1, 200].map((n) => ({
    operation: `update_items (${n})`,
    ours: (ws: Workspace) => ({
      url: `${ws.base}/api/v1/items`,
      method: 'PATCH' as const,
      headers: auth(ws),
      requests: [
        {
          setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ items: pickIds(ws, n).map((itemId, i) => ({ itemId, title: `edit ${counter}-${i}` })) }) }),
        },
      ],
    }),
    ceiling: (ws: Workspace) => ({
      url: `${ws.ceilingBase}/items`,
      method: 'PATCH' as const,
      headers: json,
      requests: [
        {
          setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ items: pickIds(ws, n).map((itemId, i) => ({ itemId, title: `edit ${counter}-${i}` })) }) }),
        },
      ],
    }),
  })),
  ...(['count', 'sum'] as const).map((mode) => ({
    operation: `query_items (${mode})`,
    ours: (ws: Workspace) => ({
      url: `${ws.base}/api/v1/items/query`,
      method: 'POST' as const,
      headers: auth(ws),
      body: JSON.stringify({
        listId: ws.seed.bigListId,
        mode,
        ...(mode === 'sum' ? { sumPropertyId: 'Pages' } : {}),
        where: [{ property: 'State', op: 'eq', value: 'Read' }],
      }),
    }),
    ceiling: (ws: Workspace) => ({
      url: `${ws.ceilingBase}/items/query`,
      method: 'POST' as const,
      headers: json,
      body: JSON.stringify({ listId: ws.seed.bigListId, mode, optionId: ws.readOption }),
    }),
    plan: (ws: Workspace) => ({ sql: mode === 'sum' ? SQL.querySum : SQL.queryCount, params: [ws.seed.bigListId, ws.readOption] }),
  })),
  {
    operation: 'changes feed (200)',
    ours: (ws) => ({ url: `${ws.base}/api/v1/items?listId=${ws.seed.bigListId}&changedSince=2000-01-01T00:00:00Z&limit=200`, headers: auth(ws) }),
    ceiling: (ws) => ({ url: `${ws.ceilingBase}/items?listId=${ws.seed.bigListId}&changedSince=x&limit=200` }),
    plan: (ws) => ({ sql: SQL.feed, params: [ws.seed.bigListId, 201] }),
  },
];

function pickIds(ws: Workspace, n: number): string[] {
  const start = (counter++ * n) % Math.max(1, ws.itemIds.length - n);
  return ws.itemIds.slice(start, start + n);
}

async function load(options: autocannon.Options, connections: number): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const result = await autocannon({ ...options, connections, duration: SECONDS, pipelining: 1 });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const dataDir = path.join(os.tmpdir(), `listkeeper-bench-${process.pid}`);
  await rm(dataDir, { recursive: true, force: true });
  await mkdir(dataDir, { recursive: true });
  await chmod(dataDir, 0o755);
  say(`embedded Postgres in ${dataDir}`);
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), log: (l) => say(l) });
  const db = createDb(pg.url);
  const children: ChildProcess[] = [];
  try {
    await migrate(db);
    const small = await seedWorkspace(db, { items: 10000, seed: 1 });
    say(`seeded 10,000 items in ${small.ms} ms`);
    const big = await seedWorkspace(db, { items: 100000, seed: 2 });
    say(`seeded 100,000 items in ${big.ms} ms (${Math.round(100000 / (big.ms / 1000))} items/s)`);

    const port = await freePort();
    const ceilingPort = await freePort();
    // Keyword search only while measuring the API: embedding 110,000 seeded items would keep a
    // core busy for many minutes and the table would measure the backlog, not the operations.
    // Search has its own benchmark (make bench-search); memory with the model loaded is below.
    const serverEnv = {
      DATABASE_URL: pg.url,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '1000000000',
      EMBEDDINGS: 'none',
    };
    const ours = startProcess(['dist/src/main.js'], serverEnv);
    const ceiling = startProcess(['--import', 'tsx', 'bench/ceiling.ts'], { DATABASE_URL: pg.url, PORT: String(ceilingPort) });
    children.push(ours, ceiling);
    await waitFor(`http://127.0.0.1:${port}/readyz`, ours);
    const indexCatchUpSeconds = await waitForIndex(db);
    await sleep(1500);
    const idleRss = await rssMb(ours.pid!);

    const workspace = async (label: string, seed: SeedResult): Promise<Workspace> => {
      const ids = (await db('items')
        .where({ owner_id: seed.userId, list_id: seed.lists.tasks })
        .whereNull('deleted_at')
        .orderByRaw('random()')
        .limit(2000)
        .pluck('id')) as string[];
      const list = (await db('lists').where({ id: seed.bigListId }).first()) as { properties: { id: string; options?: { id: string; label: string }[] }[] };
      const readOption = list.properties.find((p) => p.id === 'p_state')!.options!.find((o) => o.label === 'Read')!.id;
      return { label, seed, itemIds: ids, readOption, base: `http://127.0.0.1:${port}`, ceilingBase: `http://127.0.0.1:${ceilingPort}` };
    };
    const wsSmall = await workspace('10k', small);
    const wsBig = await workspace('100k', big);

    const rows: Row[] = [];
    let peakRss = idleRss;
    const measure = async (c: Case, ws: Workspace, connections: number) => {
      // Write cases leave an indexing backlog; each case starts on a caught-up server.
      await waitForIndex(db, undefined, true);
      for (const target of ['listkeeper', 'ceiling'] as const) {
        const r = await load(target === 'listkeeper' ? c.ours(ws) : c.ceiling(ws), connections);
        rows.push({ operation: c.operation, data: ws.label, connections, target, ...r });
        if (target === 'listkeeper') peakRss = Math.max(peakRss, await rssMb(ours.pid!));
      }
      say(`${c.operation} ${ws.label} x${connections} done`);
    };
    for (const c of cases) {
      if (c.operation.startsWith('changes feed')) {
        // Diagnostics for the feed: rows waiting for a position, and sessions holding a transaction open.
        const pending = await db('items').whereNull('feed_seq').count('* as n').first();
        const idle = await db.raw(`select count(*)::int as n from pg_stat_activity where state = 'idle in transaction'`);
        say(`before the feed: ${String((pending as { n: string }).n)} items without a feed position, ${idle.rows[0].n} sessions idle in a transaction`);
      }
      for (const connections of CONNECTIONS) await measure(c, wsBig, connections);
    }
    for (const c of cases) await measure(c, wsSmall, 8);

    // Two processes on one database against one, same load.
    const port2 = await freePort();
    const second = startProcess(['dist/src/main.js'], { ...serverEnv, PORT: String(port2) });
    children.push(second);
    await waitFor(`http://127.0.0.1:${port2}/readyz`, second);
    const getItem = cases[0]!;
    const one = await load(getItem.ours(wsBig), 32);
    const [a, b] = await Promise.all([load(getItem.ours(wsBig), 16), load(getItem.ours({ ...wsBig, base: `http://127.0.0.1:${port2}` }), 16)]);
    const twoProcesses = { oneProcessRps: one.rps, twoProcessesRps: a.rps + b.rps, errors: one.errors + a.errors + b.errors };
    await stopProcess(second);
    await stopProcess(ours);
    await stopProcess(ceiling);

    // Start time on an existing data folder: `npm start` with the embedded default.
    const startDir = path.join(dataDir, 'start');
    await mkdir(startDir, { recursive: true });
    const startPort = await freePort();
    const startEnv = { LISTKEEPER_DATA_DIR: startDir, PORT: String(startPort), LOG_LEVEL: 'warn' };
    const first = startProcess(['dist/src/main.js'], startEnv);
    await waitFor(`http://127.0.0.1:${startPort}/readyz`, first, 120000);
    await stopProcess(first);
    const startTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const child = startProcess(['dist/src/main.js'], startEnv);
      await waitFor(`http://127.0.0.1:${startPort}/readyz`, child, 120000);
      startTimes.push(Math.round(performance.now() - t0));
      await stopProcess(child);
    }

    // Memory with the local embedding model loaded, on the same data folder, after its warm-up.
    const modelChild = startProcess(['dist/src/main.js'], { ...startEnv, LOG_LEVEL: 'info' }, true);
    await waitForLine(modelChild, 'search is ready', 120000);
    await sleep(1500);
    const modelIdleRss = await rssMb(modelChild.pid!);
    await stopProcess(modelChild);

    const findings: string[] = [];
    const plans: Record<string, string> = {};
    const byKey = (op: string, data: string, conn: number, target: string) =>
      rows.find((r) => r.operation === op && r.data === data && r.connections === conn && r.target === target);
    const table = rows
      .filter((r) => r.target === 'listkeeper')
      .map((r) => {
        const ceil = byKey(r.operation, r.data, r.connections, 'ceiling')!;
        return {
          operation: r.operation,
          data: r.data,
          connections: r.connections,
          rps: r.rps,
          p50: r.p50,
          p99: r.p99,
          ceilingRps: ceil.rps,
          ceilingP50: ceil.p50,
          ratio: ceil.rps ? Number((ceil.rps / Math.max(1, r.rps)).toFixed(2)) : null,
          errors: r.errors + ceil.errors,
        };
      });
    for (const c of cases) {
      const s = byKey(c.operation, '10k', 8, 'listkeeper');
      const g = byKey(c.operation, '100k', 8, 'listkeeper');
      if (s && g && !c.operation.startsWith('create') && !c.operation.startsWith('update') && s.rps / Math.max(1, g.rps) > 1.5) {
        findings.push(`${c.operation} slows ${(s.rps / Math.max(1, g.rps)).toFixed(2)}x from 10k to 100k items`);
        if (c.plan) {
          const { sql, params } = c.plan(wsBig);
          const explained = await db.raw(`EXPLAIN ANALYZE ${sql.replace(/\$\d+/g, '?')}`, params as Knex.RawBinding[]);
          plans[c.operation] = (explained.rows as Record<string, string>[]).map((r) => r['QUERY PLAN']!).join('\n');
        }
      }
    }
    for (const row of table) {
      if (row.errors > 0)
        findings.push(
          `${row.operation} ${row.data} x${row.connections}: ${row.errors} failed requests (non-2xx or timeouts); that row's figures are not valid`,
        );
    }
    for (const row of table) {
      const read = !row.operation.startsWith('create') && !row.operation.startsWith('update');
      if (read && row.connections === 32 && row.data === '100k' && (row.ratio ?? 0) > 2)
        findings.push(`${row.operation}: ${row.ratio}x below its ceiling at 32 connections (goal 2x)`);
    }
    const result = {
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
      secondsPerRun: SECONDS,
      table,
      memory: { idleRssMb: idleRss, peakRssMb: peakRss, idleWithModelRssMb: modelIdleRss },
      startToReadyMs: startTimes,
      twoProcesses,
      seeding: { items100kMs: big.ms, indexCatchUpSeconds },
      findings,
      plans,
      totalSeconds: Math.round((performance.now() - started) / 1000),
    };
    await mkdir(path.join(root, 'bench/out'), { recursive: true });
    await writeFile(path.join(root, 'bench/out/latest.json'), JSON.stringify(result, null, 2));
    printTable(result);
  } finally {
    for (const child of children) await stopProcess(child).catch(() => undefined);
    await db.destroy();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function printTable(result: {
  table: Record<string, unknown>[];
  memory: object;
  startToReadyMs: number[];
  twoProcesses: object;
  findings: string[];
  plans: Record<string, string>;
  machine: object;
}): void {
  const cols = ['operation', 'data', 'connections', 'rps', 'p50', 'p99', 'ceilingRps', 'ceilingP50', 'ratio', 'errors'];
  const widths = cols.map((c) => Math.max(c.length, ...result.table.map((r) => String(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`${line(cols)}\n${line(widths.map((w) => '-'.repeat(w)))}\n`);
  for (const r of result.table) process.stdout.write(`${line(cols.map((c) => String(r[c])))}\n`);
  process.stdout.write(
    `\nmachine: ${JSON.stringify(result.machine)}\nmemory (MB): ${JSON.stringify(result.memory)}\nstart to /readyz on an existing data folder (ms): ${result.startToReadyMs.join(', ')}\ntwo processes: ${JSON.stringify(result.twoProcesses)}\n`,
  );
  process.stdout.write(`findings:\n${result.findings.map((f) => `  - ${f}`).join('\n') || '  none'}\n`);
  for (const [operation, plan] of Object.entries(result.plans))
    process.stdout.write(`\nquery plan of ${operation} (100k, the ceiling's statement):\n${plan}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
