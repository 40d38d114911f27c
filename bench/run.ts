/**
 * `make bench`: seeds 10,000- and 100,000-item workspaces on a fresh embedded Postgres, runs
 * listkeeper (the built server) and the ceiling (bench/ceiling.ts: the same SQL, bare) side
 * by side in one run, loads both with autocannon at 1, 8 and 32 connections, and prints one
 * table of throughput, p50, p99 and the ratio to the ceiling; also growth 10k → 100k, memory,
 * start time and two processes on one database. Writes bench/out/latest.json.
 * Ratios, not absolute numbers, are the result: both sides share the same noisy machine.
 * Then the goals of issue #20 (bench/goals.ts), each beside its measured figure.
 *
 * Settings (environment):
 *   BENCH_SECONDS      length of each load run (default 3)
 *   BENCH_CONNECTIONS  comma-separated connection counts (default 1,8,32)
 *   BENCH_ONLY         a subset, comma-separated: operations by prefix (get_item, list_items (50), …)
 *                      and the extra measurements by name (first-parse, update-burst, two-processes,
 *                      start, model-memory); default everything
 *   BENCH_PROFILE=1    also profile the server (--cpu-prof) under get_item over REST and over MCP
 *                      and under list_items (50) at 32 connections and write flame graphs (cpupro) to bench/out/
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, rename, rm, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { startEmbeddedPostgres } from '../src/store/embedded/index.js';
import { createDb, migrate } from '../src/store/db.js';
import { seedWorkspace, type SeedResult } from './seed.js';
import { generateBody } from './body-text.js';
import { printGoals } from './goals.js';
import { auth, cases, rotate, type Case, type Load, type Row, type Workspace } from './run-cases.js';
import { analyse, goalsOf, printTable } from './run-report.js';
import { freePort } from './support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,8,32').split(',').map(Number);
const ONLY = process.env.BENCH_ONLY?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
/** Whether this run measures `name` (an operation, matched by prefix, or an extra measurement). */
const wanted = (name: string) => !ONLY || ONLY.some((o) => name.startsWith(o));
const PROFILE = process.env.BENCH_PROFILE === '1';
const say = (line: string) => process.stderr.write(`[bench] ${line}\n`);

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
  return spawn(process.execPath, [...nodeFlags(), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', pipeOut ? 'pipe' : 'ignore', 'inherit'],
  });
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

function summarise(result: autocannon.Result): Load {
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    completed: result.requests.total,
    timeouts: result.timeouts,
  };
}

async function load(options: autocannon.Options, connections: number, seconds = SECONDS): Promise<Load> {
  return summarise(await autocannon({ ...options, connections, duration: seconds, pipelining: 1 }));
}

/** Node flags for the next server started; set while profiling. */
let extraNodeFlags: string[] = [];
const nodeFlags = () => extraNodeFlags;

/**
 * get_item's latency while the same process parses a 1 MB body it has never seen (a
 * `forEditing` read of a new item): the load starts, the read is sent 300 ms later, and the
 * load stops when the read answers. Also get_item's p99 under the same load without a parse.
 */
async function firstParse(ws: Workspace): Promise<{ parseMs: number; p99DuringParse: number; p50DuringParse: number; requests: number; p99Without: number }> {
  const without = await load(cases[0]!.ours(ws), 32);
  // Just under the 1,000,000 characters a body may have.
  const body = `# First parse ${Date.now()}\n\n${generateBody(999_000)}`.slice(0, 999_999);
  const created = await fetch(`${ws.base}/api/v1/items`, {
    method: 'POST',
    headers: auth(ws),
    body: JSON.stringify({ listId: ws.seed.lists.projects, items: [{ title: 'a long body', body }] }),
  });
  if (!created.ok) throw new Error(`creating the 1 MB item: ${created.status} ${await created.text()}`);
  const id = ((await created.json()) as { items: { id: string }[] }).items[0]!.id;
  let parseMs = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ ...cases[0]!.ours(ws), connections: 32, duration: 120, pipelining: 1 }, (err, res) => (err ? reject(err) : resolve(res)));
    setTimeout(async () => {
      const t0 = performance.now();
      const read = await fetch(`${ws.base}/api/v1/items/${id}?forEditing=true`, { headers: auth(ws) }).catch((e: unknown) => e as Error);
      parseMs = Math.round(performance.now() - t0);
      if (read instanceof Error || !read.ok) reject(new Error(`the forEditing read failed: ${read instanceof Error ? read.message : read.status}`));
      instance.stop();
    }, 300);
  });
  const during = summarise(result);
  return { parseMs, p99DuringParse: during.p99, p50DuringParse: during.p50, requests: during.completed, p99Without: without.p99 };
}

/** A seeded workspace as the cases read it: 2,000 of its task ids in random order and the option id of State = Read. */
async function loadWorkspace(db: Knex, label: string, seed: SeedResult, port: number, ceilingPort: number): Promise<Workspace> {
  const ids = (await db('items')
    .where({ owner_id: seed.userId, list_id: seed.lists.tasks })
    .whereNull('deleted_at')
    .orderByRaw('random()')
    .limit(2000)
    .pluck('id')) as string[];
  const list = (await db('lists').where({ id: seed.bigListId }).first()) as { properties: { id: string; options?: { id: string; label: string }[] }[] };
  const readOption = list.properties.find((p) => p.id === 'p_state')!.options!.find((o) => o.label === 'Read')!.id;
  return { label, seed, itemIds: ids, readOption, base: `http://127.0.0.1:${port}`, ceilingBase: `http://127.0.0.1:${ceilingPort}` };
}

/**
 * Every selected case on the 100k workspace at each connection count (and 8), then on the 10k one at 8: listkeeper
 * and the ceiling in turn, each on a caught-up server. Also listkeeper's peak RSS meanwhile.
 */
async function measureCases(
  db: Knex,
  oursPid: number,
  selected: Case[],
  [wsSmall, wsBig]: [Workspace, Workspace],
  idleRss: number,
): Promise<{ rows: Row[]; peakRss: number }> {
  const rows: Row[] = [];
  let peakRss = idleRss;
  const measure = async (c: Case, ws: Workspace, connections: number) => {
    // Write cases leave an indexing backlog; each case starts on a caught-up server.
    await waitForIndex(db, undefined, true);
    for (const target of ['listkeeper', 'ceiling'] as const) {
      const r = await load(target === 'listkeeper' ? c.ours(ws) : c.ceiling(ws), connections);
      rows.push({ operation: c.operation, data: ws.label, connections, target, ...r });
      if (target === 'listkeeper') peakRss = Math.max(peakRss, await rssMb(oursPid));
    }
    say(`${c.operation} ${ws.label} x${connections} done`);
  };
  for (const c of selected) {
    if (c.operation.startsWith('changes feed')) {
      // Diagnostics for the feed: rows waiting for a position, and sessions holding a transaction open.
      const pending = await db('items').whereNull('feed_seq').count('* as n').first();
      const idle = await db.raw(`select count(*)::int as n from pg_stat_activity where state = 'idle in transaction'`);
      say(`before the feed: ${String((pending as { n: string }).n)} items without a feed position, ${idle.rows[0].n} sessions idle in a transaction`);
    }
    // 8 connections always: the growth 10k → 100k compares there.
    for (const connections of [...new Set([...CONNECTIONS, 8])].sort((a, b) => a - b)) await measure(c, wsBig, connections);
  }
  // The growth 10k → 100k is measured at 8 connections.
  for (const c of selected) await measure(c, wsSmall, 8);
  return { rows, peakRss };
}

/** get_item at 32 connections on one process against two (16 each) on the same database; `children` gets the second. */
async function measureTwoProcesses(
  serverEnv: Record<string, string>,
  wsBig: Workspace,
  children: ChildProcess[],
): Promise<{ oneProcessRps: number; twoProcessesRps: number; errors: number }> {
  const port2 = await freePort();
  const second = startProcess(['dist/src/main.js'], { ...serverEnv, PORT: String(port2) });
  children.push(second);
  await waitFor(`http://127.0.0.1:${port2}/readyz`, second);
  const getItem = cases[0]!;
  const one = await load(getItem.ours(wsBig), 32);
  const [a, b] = await Promise.all([load(getItem.ours(wsBig), 16), load(getItem.ours({ ...wsBig, base: `http://127.0.0.1:${port2}` }), 16)]);
  await stopProcess(second);
  return { oneProcessRps: one.rps, twoProcessesRps: a.rps + b.rps, errors: one.errors + a.errors + b.errors };
}

/** Start to /readyz on an existing data folder (3 times), and RSS with the local embedding model loaded. */
async function measureStart(dataDir: string): Promise<{ startTimes: number[]; modelIdleRss: number | undefined }> {
  // Start time on an existing data folder: `npm start` with the embedded default.
  const startDir = path.join(dataDir, 'start');
  await mkdir(startDir, { recursive: true });
  const startPort = await freePort();
  const startEnv = { LISTKEEPER_DATA_DIR: startDir, PORT: String(startPort), LOG_LEVEL: 'warn' };
  const startTimes: number[] = [];
  if (wanted('start') || wanted('model-memory')) {
    const first = startProcess(['dist/src/main.js'], startEnv);
    await waitFor(`http://127.0.0.1:${startPort}/readyz`, first, 120000);
    await stopProcess(first);
  }
  for (let i = 0; wanted('start') && i < 3; i++) {
    const t0 = performance.now();
    const child = startProcess(['dist/src/main.js'], startEnv);
    await waitFor(`http://127.0.0.1:${startPort}/readyz`, child, 120000);
    startTimes.push(Math.round(performance.now() - t0));
    await stopProcess(child);
  }

  // Memory with the local embedding model loaded, on the same data folder, after its warm-up.
  let modelIdleRss: number | undefined;
  if (wanted('model-memory')) {
    const modelChild = startProcess(['dist/src/main.js'], { ...startEnv, LOG_LEVEL: 'info' }, true);
    await waitForLine(modelChild, 'search is ready', 120000);
    await sleep(1500);
    modelIdleRss = await rssMb(modelChild.pid!);
    await stopProcess(modelChild);
  }
  return { startTimes, modelIdleRss };
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
    // What autovacuum does within minutes of a bulk load, done now so the measurements do not
    // depend on when it comes by: the visibility map (index-only scans) and fresh statistics.
    const vacuumStarted = performance.now();
    await db.raw('VACUUM ANALYZE');
    say(`vacuumed in ${Math.round(performance.now() - vacuumStarted)} ms`);
    await sleep(1500);
    const idleRss = await rssMb(ours.pid!);

    const wsSmall = await loadWorkspace(db, '10k', small, port, ceilingPort);
    const wsBig = await loadWorkspace(db, '100k', big, port, ceilingPort);

    const findings: string[] = [];
    const selected = cases.filter((c) => wanted(c.operation));
    const { rows, peakRss } = await measureCases(db, ours.pid!, selected, [wsSmall, wsBig], idleRss);

    // update_items (200) at 32 connections for longer than a request may take (autocannon gives
    // up after 10 s): in a 3-second run a request still waiting at the end is not counted.
    const updateBurst = wanted('update-burst') ? await load(cases.find((c) => c.operation === 'update_items (200)')!.ours(wsBig), 32, 20) : undefined;
    if (updateBurst) say(`update_items (200) x32 for 20 s: ${updateBurst.completed} completed, ${updateBurst.timeouts} timeouts, p99 ${updateBurst.p99} ms`);
    // The burst above leaves an indexing backlog: measure the parse on a caught-up server.
    await waitForIndex(db, undefined, true);
    const parse = wanted('first-parse')
      ? await firstParse(wsBig).catch((err: unknown) => {
          findings.push(`first parse not measured: ${err instanceof Error ? err.message : String(err)}`);
          return undefined;
        })
      : undefined;
    if (parse) say(`first parse of a 1 MB body: ${parse.parseMs} ms; get_item p99 meanwhile ${parse.p99DuringParse} ms`);

    // Two processes on one database against one, same load.
    const twoProcesses = wanted('two-processes') ? await measureTwoProcesses(serverEnv, wsBig, children) : undefined;
    await stopProcess(ours);
    if (PROFILE) await profileServer(serverEnv, wsBig);
    await stopProcess(ceiling);

    const { startTimes, modelIdleRss } = await measureStart(dataDir);

    const { table, growth, plans } = await analyse(db, rows, selected, [wsSmall, wsBig], findings);
    const result = {
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version },
      secondsPerRun: SECONDS,
      table,
      memory: { idleRssMb: idleRss, peakRssMb: peakRss, idleWithModelRssMb: modelIdleRss },
      startToReadyMs: startTimes,
      twoProcesses,
      growth,
      firstParse: parse,
      updateBurst,
      seeding: { items100kMs: big.ms, indexCatchUpSeconds },
      findings,
      plans,
      totalSeconds: Math.round((performance.now() - started) / 1000),
    };
    await mkdir(path.join(root, 'bench/out'), { recursive: true });
    await writeFile(path.join(root, 'bench/out/latest.json'), JSON.stringify(result, null, 2));
    printTable(result);
    printGoals(`Goals (100k items, ${SECONDS}-second runs, this run):`, goalsOf(result));
  } finally {
    for (const child of children) await stopProcess(child).catch(() => undefined);
    await db.destroy();
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Runs a server under `--cpu-prof` with the load of get_item at 32 connections, over REST and
 * then as an MCP tools/call, then of list_items (50), one server each, and turns each profile into a flame graph
 * (cpupro, a self-contained HTML page) in bench/out/.
 */
async function profileServer(serverEnv: Record<string, string>, ws: Workspace): Promise<void> {
  const outDir = path.join(root, 'bench/out');
  const mcp = (w: Workspace): autocannon.Options => ({
    url: `${w.base}/mcp`,
    method: 'POST',
    headers: { ...auth(w), accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    requests: [
      {
        setupRequest: (r: any) => ({
          ...r,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_item', arguments: { id: rotate(w.itemIds) } } }),
        }),
      },
    ],
  });
  const runs = [
    { name: 'get_item', options: (w: Workspace) => cases[0]!.ours(w) },
    { name: 'mcp-get_item', options: mcp },
    { name: 'list_items', options: (w: Workspace) => cases.find((c) => c.operation === 'list_items (50)')!.ours(w) },
  ];
  for (const run of runs) {
    const dir = path.join(os.tmpdir(), `listkeeper-profile-${process.pid}-${run.name}`);
    await rm(dir, { recursive: true, force: true });
    const port = await freePort();
    extraNodeFlags = ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-name=server.cpuprofile'];
    const child = startProcess(['dist/src/main.js'], { ...serverEnv, PORT: String(port) });
    extraNodeFlags = [];
    const w = { ...ws, base: `http://127.0.0.1:${port}` };
    await waitFor(`${w.base}/readyz`, child);
    await load(run.options(w), 32, 2); // warm-up, outside the figures below but inside the profile
    const measured = await load(run.options(w), 32, 10);
    await stopProcess(child);
    const report = `flame-${run.name}.html`;
    await new Promise<void>((resolve, reject) => {
      const cpupro = spawn(path.join(root, 'node_modules/.bin/cpupro'), [path.join(dir, 'server.cpuprofile'), '-n', '-o', outDir, '-f', report], {
        stdio: 'ignore',
      });
      cpupro.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cpupro exited with ${code}`))));
    });
    await rename(path.join(dir, 'server.cpuprofile'), path.join(outDir, `${run.name}.cpuprofile`));
    await rm(dir, { recursive: true, force: true });
    say(`profiled ${run.name} (${measured.rps} req/s, p99 ${measured.p99} ms): bench/out/${report}, bench/out/${run.name}.cpuprofile`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
