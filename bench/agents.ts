/**
 * `make bench-agents`: many agents at once (issue #45). N simulated agents, each its own
 * account, lists and token (API keys and OAuth access tokens, half of each over MCP), on the
 * mix of bench/agents/mix.ts at a steady rate each with exponential think time, open loop,
 * against the built server on 127.0.0.1; the same mix replayed against the bare koa + pg
 * ceiling (bench/ceiling.ts) in alternating rounds of the same run, and the same against two
 * listkeeper processes on one database. Prints per operation throughput, p50/p95/p99, errors
 * and 429s, the servers' CPU time a request, the database's, memory and /proc/loadavg beside
 * every figure. Writes bench/out/agents.json.
 *
 *   npx tsx bench/agents.ts [--agents N] [--rate 0.5] [--seconds 15] [--rounds 2] [--processes 1,2]
 *
 * Without --agents it searches, for each target, the largest N whose p99 stays under 200 ms
 * with no error and no 429 (doubling from --from, then halving the gap --steps times).
 * `--waits` samples what the database's active statements wait on during each run.
 * `--memory M` then makes M agents in all and reports the process's memory with every one active.
 * Each run stops by itself: at most --seconds a round and --max-requests requests.
 * `--baseline DIR` adds a target: another build of listkeeper (e.g. `make build` of the commit
 * before a change, copied to .tmp/dist-base), one process, measured in the same rounds.
 * BENCH_PROFILE=1 writes the first listkeeper process's --cpu-prof to bench/out/agents-prof/.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../src/store/db.js';
import { freePort, openBenchDatabase } from './support.js';
import { accountMaker } from './agents/accounts.js';
import { ceilingAgent, listkeeperAgent, MIX } from './agents/mix.js';
import { cpuMsOf, rssMbOf as rss, runLoad, type LoadResult } from './agents/load.js';
import { databaseCpu, databaseCpuSpent, startCeiling, startListkeeper, type Running } from './agents/servers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : (process.env[`BENCH_${name.toUpperCase().replace(/-/g, '_')}`] ?? fallback);
};
const AGENTS = arg('agents', '') ? Number(arg('agents', '')) : null;
const RATE = Number(arg('rate', '0.5'));
const SECONDS = Number(arg('seconds', '15'));
const ROUNDS = Number(arg('rounds', '2'));
const PROCESSES = arg('processes', '1,2').split(',').map(Number);
const MAX_REQUESTS = Number(arg('max-requests', '200000'));
const FROM = Number(arg('from', '25'));
const STEPS = Number(arg('steps', '2'));
const ITEMS = Number(arg('items', '30'));
const WARMUP = Number(arg('warmup', '4'));
/** `--memory M`: after the runs, make M agents in all and measure the process's memory with all of them active. */
const MEMORY = arg('memory', '') ? Number(arg('memory', '')) : null;
const WAITS = process.argv.includes('--waits');
const P99_LIMIT_MS = 200;
const say = (line: string) => process.stderr.write(`[agents] ${line}\n`);

type Target = 'listkeeper ×1' | 'listkeeper ×2' | 'baseline ×1' | 'ceiling';
const BASELINE = arg('baseline', '') || null;
interface Measured extends LoadResult {
  target: Target;
  agents: number;
  round: number;
  dbCpuMsPerRequest: number;
  /** The same less what the processes spend idle (background jobs, timers) over as long: what the requests cost. */
  netCpuMsPerRequest: number;
  netDbCpuMsPerRequest: number;
}

const passes = (m: Measured) => m.p99 < P99_LIMIT_MS && m.errors === 0 && m.rateLimited === 0;

/** CPU ms a second of each process, and of the database, with no load (listkeeper's jobs still run). */
async function idleRates(listkeeperPid: number, ceilingPid: number, pgDir: string): Promise<{ listkeeper: number; ceiling: number; db: number }> {
  const seconds = 6;
  const [l0, c0, d0] = [await cpuMsOf(listkeeperPid), await cpuMsOf(ceilingPid), await databaseCpu(pgDir)];
  await sleep(seconds * 1000);
  const [l1, c1, d1] = [await cpuMsOf(listkeeperPid), await cpuMsOf(ceilingPid), await databaseCpu(pgDir)];
  const rates = { listkeeper: (l1 - l0) / seconds, ceiling: (c1 - c0) / seconds, db: databaseCpuSpent(d0, d1) / seconds };
  say(`idle CPU: listkeeper ${rates.listkeeper.toFixed(1)} ms/s, ceiling ${rates.ceiling.toFixed(1)} ms/s, database ${rates.db.toFixed(1)} ms/s`);
  return rates;
}

/** One line of progress: the run's figures and its three slowest operations. */
function describe(m: Measured): string {
  const slowest = Object.entries(m.perOperation)
    .sort(([, a], [, b]) => b.p99 - a.p99)
    .slice(0, 3)
    .map(([op, st]) => `${op} ${st.p99}`)
    .join(', ');
  return (
    `${m.target} N=${m.agents} round ${m.round}: slowest p99 ${slowest}; ${m.throughput} req/s p50 ${m.p50} p95 ${m.p95} p99 ${m.p99} ms, ${m.errors} errors, ${m.rateLimited} 429, ` +
    `CPU ${m.cpuMsPerRequest} ms/req (db ${m.dbCpuMsPerRequest}; less idle ${m.netCpuMsPerRequest}, db ${m.netDbCpuMsPerRequest}), ${m.rssMb} MB, load ${m.load.join(' → ')}${m.samples.length ? `; ${m.samples.join(' | ')}` : ''}`
  );
}

/** Each target's largest passing N: doubling from FROM until one fails, then halving the gap STEPS times, targets alternating at each step. */
async function searchCapacity(
  targets: Target[],
  measure: (t: Target, n: number, round: number) => Promise<Measured>,
): Promise<Partial<Record<Target, number>>> {
  const state = new Map<Target, { pass: number; fail: number | null; steps: number }>(targets.map((t) => [t, { pass: 0, fail: null, steps: 0 }]));
  let round = 0;
  const next = (s: { pass: number; fail: number | null }) => (s.fail === null ? Math.max(FROM, s.pass * 2) : Math.round((s.pass + s.fail) / 2));
  while ([...state.values()].some((s) => s.fail === null || s.steps < STEPS)) {
    round++;
    for (const t of targets) {
      const s = state.get(t)!;
      if (s.fail !== null && s.steps >= STEPS) continue;
      const n = next(s);
      if (s.fail !== null) s.steps++;
      const m = await measure(t, n, round);
      if (passes(m)) s.pass = n;
      else s.fail = n;
      if (s.fail !== null && s.fail - s.pass <= Math.max(2, s.pass * 0.1)) s.steps = STEPS;
    }
  }
  return Object.fromEntries([...state].map(([t, s]) => [t, s.pass]));
}

/**
 * What a process keeps per agent: accounts up to `total`, each of them sending a couple of
 * requests of the mix within 30 s (so every token has its rate-limit row, its list read and
 * remembered), then the process's RSS against what it had before.
 */
async function memoryPerAgents(opts: {
  maker: ReturnType<typeof accountMaker>;
  ready: (n: number) => Promise<void>;
  server: Running;
  before: number;
  total: number;
}) {
  const { maker, server, before, total } = opts;
  const from = maker.accounts.length;
  await opts.ready(total);
  const agents = maker.accounts.map((a) => listkeeperAgent(a));
  const run = await runLoad({ agents, ratePerAgent: 2 / 30, seconds: 30, maxRequests: MAX_REQUESTS, ports: [server.port], pids: [server.pid] });
  const afterAll = await rss(server.pid);
  const perThousand = Math.round(((afterAll - before) / Math.max(1, total - from)) * 1000);
  const line = `Memory: ${afterAll} MB after ${total} agents' ${run.requests} requests (${run.errors} errors, ${run.rateLimited} 429), against ${before} MB with ${from}: about ${perThousand} MB per 1,000 agents`;
  say(line);
  return { line, before, after: afterAll, from, to: total, perThousand };
}

async function main(): Promise<void> {
  const database = await openBenchDatabase('agents_bench', 10);
  // Where the database's postmaster.pid is, to read its processes' CPU time (BENCH_PGDATA for a server of your own).
  const pgDir = process.env.BENCH_PGDATA ?? path.join(root, '.tmp', 'bench-pg', 'pgdata');
  const results: Measured[] = [];
  const stops: Running[] = [];
  // Interrupted, it still stops what it started: the servers, then the database it made.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      say(`${signal}: stopping the servers and dropping the database`);
      void Promise.all(stops.map((s) => s.stop()))
        .then(() => database.close())
        .finally(() => process.exit(130));
    });
  try {
    await migrate(database.knex);
    const ports = [await freePort(), await freePort()];
    const baseUrl = `http://127.0.0.1:${ports[0]}`;
    const profileDir = process.env.BENCH_PROFILE === '1' ? path.join(root, 'bench', 'out', 'agents-prof') : undefined;
    const first = await startListkeeper({ databaseUrl: database.url, port: ports[0]!, baseUrl, profileDir });
    stops.push(first);
    const ceiling = await startCeiling(database.url, await freePort());
    stops.push(ceiling);
    const maker = accountMaker(database.knex, ITEMS);
    const idleRss = await rss(first.pid);
    let idle: { listkeeper: number; ceiling: number; db: number } | undefined;
    const ready = async (n: number) => {
      await maker.grow(n, baseUrl);
      // Writes of the seeding wait in the outbox for search: let them be indexed first.
      for (let t = 0; t < 600; t++) {
        const { n: left } = (await database.knex('outbox').count('* as n').first()) as { n: string };
        if (Number(left) === 0) break;
        await sleep(1000);
      }
    };

    const measure = async (target: Target, n: number, round: number): Promise<Measured> => {
      await ready(Math.min(n, target === 'ceiling' ? Math.max(maker.accounts.length, 1) : n));
      idle ??= await idleRates(first.pid, ceiling.pid, pgDir);
      let second: Running | undefined;
      // The baseline runs beside the first process, idle then, as the ceiling does.
      if (target === 'baseline ×1') second = await startListkeeper({ databaseUrl: database.url, port: ports[1]!, baseUrl, dist: path.resolve(BASELINE!) });
      if (target === 'listkeeper ×2') second = await startListkeeper({ databaseUrl: database.url, port: ports[1]!, baseUrl });
      const accounts = maker.accounts;
      // The ceiling checks no token, so agents past the accounts made reuse them (its own lists, read twice as often).
      const agents = Array.from({ length: n }, (_, i) => (target === 'ceiling' ? ceilingAgent(accounts[i % accounts.length]!) : listkeeperAgent(accounts[i]!)));
      const pids = target === 'ceiling' ? [ceiling.pid] : target === 'baseline ×1' ? [second!.pid] : [first.pid, ...(second ? [second.pid] : [])];
      const targetPorts = target === 'ceiling' ? [ceiling.port] : target === 'baseline ×1' ? [second!.port] : [first.port, ...(second ? [second.port] : [])];
      // Unmeasured first: a process's first requests run cold code, and the schedule needs a few seconds to reach its rate.
      await runLoad({ agents, ratePerAgent: RATE, seconds: WARMUP, maxRequests: MAX_REQUESTS, ports: targetPorts, pids });
      const dbBefore = await databaseCpu(pgDir);
      const sampling = WAITS ? sampleWaits(database.knex, SECONDS) : undefined;
      const result = await runLoad({ agents, ratePerAgent: RATE, seconds: SECONDS, maxRequests: MAX_REQUESTS, ports: targetPorts, pids });
      if (sampling) say(`${target}: what active statements waited on (samples every 100 ms): ${await sampling}`);
      const dbSpent = databaseCpuSpent(dbBefore, await databaseCpu(pgDir));
      await second?.stop();
      const perRequest = (ms: number) => Math.round((ms / Math.max(1, result.requests)) * 100) / 100;
      const idleServer = (target === 'ceiling' ? idle.ceiling : idle.listkeeper * pids.length) * result.seconds;
      const m: Measured = {
        ...result,
        target,
        agents: n,
        round,
        dbCpuMsPerRequest: perRequest(dbSpent),
        netCpuMsPerRequest: perRequest(result.cpuMs - idleServer),
        netDbCpuMsPerRequest: perRequest(dbSpent - idle.db * result.seconds),
      };
      say(describe(m));
      results.push(m);
      return m;
    };

    const targets: Target[] = [...PROCESSES.map((p) => `listkeeper ×${p}` as Target), ...(BASELINE ? (['baseline ×1'] as const) : []), 'ceiling'];
    const capacity: Partial<Record<Target, number>> = {};
    if (AGENTS) {
      // Alternating rounds: each target once per round, so drift on the shared machine hits all alike.
      await ready(AGENTS);
      for (let round = 1; round <= ROUNDS; round++) for (const t of targets) await measure(t, AGENTS, round);
    } else {
      Object.assign(capacity, await searchCapacity(targets, measure));
    }
    const after = await rss(first.pid);
    const accountsRun = maker.accounts.length;
    const memory = MEMORY ? await memoryPerAgents({ maker, ready, server: first, before: after, total: MEMORY }) : undefined;
    const sizes = await databaseSizes(database.knex);
    print(results, capacity, { idleRss, afterRss: after, accounts: accountsRun, ...sizes });
    if (memory) process.stdout.write(`${memory.line}\n`);
    await mkdir(path.join(root, 'bench', 'out'), { recursive: true });
    await writeFile(
      path.join(root, 'bench', 'out', 'agents.json'),
      `${JSON.stringify({ at: new Date().toISOString(), node: process.version, rate: RATE, seconds: SECONDS, mix: MIX, capacity, sizes, idleRss, afterRss: after, memory, results }, null, 2)}\n`,
    );
    process.stdout.write('\nwrote bench/out/agents.json\n');
  } finally {
    for (const s of stops.reverse()) await s.stop();
    await database.close();
  }
}

/**
 * `--waits`: samples pg_stat_activity every 100 ms over a run and counts what the active
 * statements of this database were waiting on (a lock, the client, nothing: on the CPU), by
 * the statement's first words.
 */
async function sampleWaits(knex: import('knex').Knex, seconds: number): Promise<string> {
  const counts = new Map<string, number>();
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const { rows } = (await knex.raw(
      `select coalesce(wait_event_type || ':' || wait_event, 'cpu') as w, left(regexp_replace(query, '\\s+', ' ', 'g'), 48) as q
         from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`,
    )) as { rows: { w: string; q: string }[] };
    for (const r of rows) counts.set(`${r.w} ${r.q}`, (counts.get(`${r.w} ${r.q}`) ?? 0) + 1);
    await sleep(100);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, n]) => `${n}× ${k}`)
    .join(' | ');
}

/** The database's size per 10,000 items, and the per-token state: rate-limit rows. */
async function databaseSizes(knex: import('knex').Knex) {
  const one = async (sql: string) => Number(((await knex.raw(sql)) as { rows: { v: string }[] }).rows[0]!.v);
  const items = await one('select count(*) as v from items');
  const bytes = await one('select pg_database_size(current_database()) as v');
  const itemsBytes = await one(
    "select sum(pg_total_relation_size(c.oid)) as v from pg_class c where c.relname in ('items', 'item_values', 'search_passages', 'chat_messages', 'outbox', 'item_tallies') and c.relkind = 'r'",
  );
  const rateRows = await one('select count(*) as v from rate_limits');
  return { items, databaseMb: Math.round(bytes / 1e6), mbPer10kItems: Math.round(((itemsBytes / items) * 10_000) / 1e5) / 10, rateLimitRows: rateRows };
}

function print(results: Measured[], capacity: Partial<Record<Target, number>>, extra: Record<string, number>): void {
  const out: string[] = ['', `Many agents (${RATE} req/s each, ${SECONDS} s rounds): per run`, ''];
  out.push('| target | N | round | req/s | p50 | p95 | p99 | errors | 429 | CPU ms/req | db CPU ms/req | less idle: CPU, db | RSS MB | load (start → end) |');
  out.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const m of results) {
    out.push(
      `| ${m.target} | ${m.agents} | ${m.round} | ${m.throughput} | ${m.p50} | ${m.p95} | ${m.p99} | ${m.errors} | ${m.rateLimited} | ${m.cpuMsPerRequest} | ${m.dbCpuMsPerRequest} | ${m.netCpuMsPerRequest}, ${m.netDbCpuMsPerRequest} | ${m.rssMb} | ${m.load.join(' → ')} |`,
    );
  }
  const last = results.filter((m) => m.target === 'listkeeper ×1').at(-1);
  if (last) {
    out.push(
      '',
      `Per operation, listkeeper ×1 at N=${last.agents} (last run):`,
      '',
      '| operation | requests | p50 | p95 | p99 | max | errors | 429 |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const [op, s] of Object.entries(last.perOperation))
      out.push(`| ${op} | ${s.requests} | ${s.p50} | ${s.p95} | ${s.p99} | ${s.max} | ${s.errors} | ${s.rateLimited} |`);
  }
  const ceil = capacity.ceiling;
  if (ceil !== undefined) {
    out.push('', `Capacity (largest N with p99 < ${P99_LIMIT_MS} ms, no errors, no 429):`);
    for (const [t, n] of Object.entries(capacity))
      out.push(
        `  ${t.padEnd(14)} ${String(n).padStart(5)} agents${t === 'ceiling' ? '' : `  (${Math.round((100 * n) / Math.max(1, ceil))}% of the ceiling's)`}`,
      );
  }
  // Weighted by requests, with the spread of listkeeper ÷ ceiling over the rounds both ran.
  const weighted = (ms: Measured[], f: (m: Measured) => number) =>
    ms.reduce((a, m) => a + f(m) * m.requests, 0) /
    Math.max(
      1,
      ms.reduce((a, m) => a + m.requests, 0),
    );
  const lkRuns = results.filter((m) => m.target === 'listkeeper ×1');
  const ceilingRuns = results.filter((m) => m.target === 'ceiling');
  const lk = { cpu: weighted(lkRuns, (m) => m.netCpuMsPerRequest), db: weighted(lkRuns, (m) => m.netDbCpuMsPerRequest) };
  const c = { cpu: weighted(ceilingRuns, (m) => m.netCpuMsPerRequest), db: weighted(ceilingRuns, (m) => m.netDbCpuMsPerRequest) };
  const ratios = lkRuns.flatMap((m) => {
    const other = ceilingRuns.find((x) => x.round === m.round);
    return other ? [m.netCpuMsPerRequest / Math.max(0.001, other.netCpuMsPerRequest)] : [];
  });
  out.push(
    '',
    `CPU a request less idle, over all runs: listkeeper ×1 ${lk.cpu.toFixed(2)} ms + database ${lk.db.toFixed(2)}; ceiling ${c.cpu.toFixed(2)} + ${c.db.toFixed(2)} ` +
      `(server ${(lk.cpu / Math.max(0.001, c.cpu)).toFixed(2)}x, rounds ${ratios.length ? `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}x` : 'n/a'}; ` +
      `with the database ${((lk.cpu + lk.db) / Math.max(0.001, c.cpu + c.db)).toFixed(2)}x)`,
    `Memory: listkeeper idle ${extra.idleRss} MB with no agents, ${extra.afterRss} MB after ${extra.accounts} agents; ` +
      `database ${extra.databaseMb} MB for ${extra.items} items, ${extra.mbPer10kItems} MB per 10,000 items (items, values, search, chat, outbox); ${extra.rateLimitRows} rate-limit rows`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
