/**
 * MCP `tools/call` against the same operation over REST, on the same data in the same run:
 * throughput (requests a second) and p99 latency of each, and their ratio. It measures what
 * the MCP adapter adds on top of the operation (JSON-RPC parsing, a fresh stateless protocol
 * server per request, text + structuredContent in the answer).
 *
 *   npx tsx bench/mcp/tools-call.ts [--duration 5] [--connections 32] [--rounds 3] [--only get_item,list_lists] [--revision 2026-07-28]
 *   make bench-mcp
 *
 * Pairs: get_item vs GET /items/{id}, list_lists vs GET /lists, list_items vs GET /items
 * (50 of a list) and create_items (one entry) vs POST /items. Each pair runs REST and MCP
 * alternately, `--rounds` times each, so drift on a shared machine hits both alike; the
 * goal of issue #20 (REST ÷ MCP throughput within 1.2x) is printed beside each. The server is
 * the built one (dist/, `make build`) in its own process, as `make bench` runs it, on an
 * embedded Postgres in .tmp/bench-pg (or DATABASE_URL), with RATE_LIMIT_PER_MINUTE raised
 * explicitly: the limit is counted in Postgres on every request, by both interfaces alike.
 * (The load generator reads every answer's body into a string: in the server's own process
 * it charged the server for the bytes of each answer, which an MCP answer has twice.)
 * `--revision 2026-07-28` sends the calls as a client of that revision does (no initialize, the
 * envelope in `_meta`, the Mcp-Method and Mcp-Name headers); the default is 2025-11-25.
 * Writes bench/out/mcp-vs-rest.json. Not a timed test: numbers depend on the machine.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { Knex } from 'knex';
import { pino } from 'pino';
import { loadConfig } from '../../src/core/config.js';
import { createServices } from '../../src/core/services.js';
import { migrate } from '../../src/store/db.js';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { invoke } from '../../src/operations/dispatch.js';
import type { OperationContext } from '../../src/core/context.js';
import { atMost, printGoals } from '../goals.js';
import { openBenchDatabase, startBenchServer, type BenchServer } from '../support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const revisionAt = process.argv.indexOf('--revision');
const PROTOCOL_VERSION = revisionAt >= 0 ? process.argv[revisionAt + 1]! : '2025-11-25';
const MODERN = PROTOCOL_VERSION === '2026-07-28';
/** The 2026-07-28 envelope of every request. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
};

interface Pair {
  tool: string;
  args: Record<string, unknown>;
  restPath: string;
  /** A write: POST with this JSON body (a fresh one each request), and no comparison of answers. */
  restBody?: () => Record<string, unknown>;
}

interface Measured {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** CPU time (user + system) the server process spent per answered request, in ms. */
  serverCpuMsPerRequest: number;
  /** Bytes read per answer (headers and body). */
  bytesPerRequest: number;
}

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The built server (dist/src/main.js) in a process of its own on `databaseUrl`. */
function startServer(databaseUrl: string): Promise<BenchServer> {
  return startBenchServer([path.join(here, '..', '..', 'dist', 'src', 'main.js')], databaseUrl, { label: 'the server', readyMs: 60_000 });
}

/** One load run; `cpuMs` reads the server's CPU time, so the run also says what each request cost the server. */
async function measure(options: autocannon.Options, cpuMs: () => Promise<number>): Promise<Measured> {
  const before = await cpuMs();
  const result = await autocannon(options);
  const spent = (await cpuMs()) - before;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    serverCpuMsPerRequest: spent / Math.max(1, result.requests.total),
    bytesPerRequest: result.throughput.total / Math.max(1, result.requests.total),
  };
}

/** Mean of the rounds' throughput; worst of their p99 (a tail is only as good as its worst round). */
function combine(rounds: Measured[]): Measured {
  const sum = (f: (m: Measured) => number) => rounds.reduce((acc, m) => acc + f(m), 0);
  return {
    requestsPerSecond: sum((m) => m.requestsPerSecond) / rounds.length,
    p50Ms: sum((m) => m.p50Ms) / rounds.length,
    p99Ms: Math.max(...rounds.map((m) => m.p99Ms)),
    requests: sum((m) => m.requests),
    non2xx: sum((m) => m.non2xx),
    errors: sum((m) => m.errors),
    serverCpuMsPerRequest:
      sum((m) => m.serverCpuMsPerRequest * m.requests) /
      Math.max(
        1,
        sum((m) => m.requests),
      ),
    bytesPerRequest:
      sum((m) => m.bytesPerRequest * m.requests) /
      Math.max(
        1,
        sum((m) => m.requests),
      ),
  };
}

/** The bench account with 100 realistic items on Tasks, and the pairs to measure on them (those in `only`, if given). */
async function seedPairs(knex: Knex, rest: Omit<OperationContext, 'principal' | 'db'>, only: string[] | null): Promise<{ key: string; pairs: Pair[] }> {
  const user = await createUser(knex, { email: 'bench@example.com', name: 'Bench', timezone: 'Europe/London' });
  const key = await createApiKey(knex, user.id);
  const ctx: OperationContext = {
    principal: { userId: user.id, via: 'apiKey', clientName: null, tokenId: `key:${user.id}` },
    db: knex,
    ...rest,
  };

  // A realistic item among others: a body of a few blocks, on the Tasks list.
  const entries = Array.from({ length: 100 }, (_, i) => ({
    title: `Task ${i}`,
    body: `## Notes\n\n- step one\n- step two\n\nDetails for task ${i}.`,
    dueAt: '2026-12-01T09:00:00Z',
  }));
  const created = (await invoke(ctx, 'create_items', { params: {}, body: { listId: 'tasks', items: entries } })) as { items: { id: string }[] };
  const id = created.items[50]!.id;
  let n = 0;
  const newItem = () => ({ listId: 'tasks', items: [{ title: `bench ${n++}` }] });
  const pairs: Pair[] = [
    { tool: 'get_item', args: { id }, restPath: `/api/v1/items/${id}` },
    { tool: 'list_lists', args: {}, restPath: '/api/v1/lists' },
    { tool: 'list_items', args: { listId: 'tasks', limit: 50 }, restPath: '/api/v1/items?listId=tasks&limit=50' },
    { tool: 'create_items', args: {}, restPath: '/api/v1/items', restBody: newItem },
  ].filter((p) => !only || only.includes(p.tool));
  return { key, pairs };
}

/** Where and how one pair is measured: the server, the headers of each side, and the load. */
interface PairRun {
  base: string;
  auth: Record<string, string>;
  baseHeaders: Record<string, string>;
  cpuMs: () => Promise<number>;
  connections: number;
  duration: number;
  rounds: number;
}

/** One pair: checks REST and MCP answer alike, measures them in alternating rounds, prints the comparison. */
async function comparePair(pair: Pair, run: PairRun): Promise<{ entry: Record<string, unknown>; goal: ReturnType<typeof atMost> }> {
  const { base, auth, baseHeaders, connections, duration, rounds } = run;
  const mcpHeaders = MODERN ? { ...baseHeaders, 'Mcp-Method': 'tools/call', 'Mcp-Name': pair.tool } : baseHeaders;
  const mcpBody = () =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: pair.tool, arguments: pair.restBody ? pair.restBody() : pair.args, ...(MODERN ? { _meta: ENVELOPE } : {}) },
    });
  const restOptions: autocannon.Options = pair.restBody
    ? {
        url: `${base}${pair.restPath}`,
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        requests: [{ setupRequest: (r: any) => ({ ...r, body: JSON.stringify(pair.restBody!()) }) }],
      }
    : { url: `${base}${pair.restPath}`, headers: auth };
  const mcpOptions: autocannon.Options = {
    url: `${base}/mcp`,
    method: 'POST',
    headers: mcpHeaders,
    requests: [{ setupRequest: (r: any) => ({ ...r, body: mcpBody() }) }],
  };
  if (!pair.restBody) {
    // Both must answer the same thing before their speed means anything.
    const rest = (await (await fetch(`${base}${pair.restPath}`, { headers: auth })).json()) as unknown;
    const mcp = (await (await fetch(`${base}/mcp`, { method: 'POST', headers: mcpHeaders, body: mcpBody() })).json()) as {
      result?: { isError?: boolean; structuredContent?: unknown };
    };
    if (mcp.result?.isError || JSON.stringify(mcp.result?.structuredContent) !== JSON.stringify(rest)) {
      throw new Error(`${pair.tool}: MCP and REST disagree before the benchmark: ${JSON.stringify(mcp).slice(0, 300)}`);
    }
  }
  const restRounds: Measured[] = [];
  const mcpRounds: Measured[] = [];
  for (let round = 0; round < rounds; round++) {
    restRounds.push(await measure({ ...restOptions, connections, duration }, run.cpuMs));
    mcpRounds.push(await measure({ ...mcpOptions, connections, duration }, run.cpuMs));
  }
  const restResult = combine(restRounds);
  const mcpResult = combine(mcpRounds);
  const entry = {
    pair: `${pair.tool} vs ${pair.restBody ? 'POST' : 'GET'} ${pair.restPath.replace(/[0-9a-f-]{36}/, '{id}')}`,
    rest: restResult,
    mcp: mcpResult,
    mcpThroughputShare: mcpResult.requestsPerSecond / restResult.requestsPerSecond,
  };
  const goal = atMost(
    `${pair.tool}: REST ÷ MCP tools/call throughput at ${connections} connections`,
    restResult.requestsPerSecond / mcpResult.requestsPerSecond,
    1.2,
    'x',
  );
  process.stdout.write(
    `\n${pair.tool} (MCP ${PROTOCOL_VERSION} tools/call) vs ${pair.restBody ? 'POST' : 'GET'} ${pair.restPath.replace(/[0-9a-f-]{36}/, '{id}')} (REST), ${connections} connections, ${rounds}×${duration}s each:\n` +
      `  REST  ${restResult.requestsPerSecond.toFixed(0).padStart(6)} req/s   p50 ${restResult.p50Ms.toFixed(1)} ms   p99 ${restResult.p99Ms.toFixed(1)} ms   (${restResult.requests} requests, ${restResult.non2xx} non-2xx, ${restResult.errors} errors)\n` +
      `  MCP   ${mcpResult.requestsPerSecond.toFixed(0).padStart(6)} req/s   p50 ${mcpResult.p50Ms.toFixed(1)} ms   p99 ${mcpResult.p99Ms.toFixed(1)} ms   (${mcpResult.requests} requests, ${mcpResult.non2xx} non-2xx, ${mcpResult.errors} errors)\n` +
      `  MCP throughput = ${((100 * mcpResult.requestsPerSecond) / restResult.requestsPerSecond).toFixed(0)}% of REST\n` +
      `  server CPU a request: REST ${restResult.serverCpuMsPerRequest.toFixed(2)} ms, MCP ${mcpResult.serverCpuMsPerRequest.toFixed(2)} ms (${(mcpResult.serverCpuMsPerRequest / restResult.serverCpuMsPerRequest).toFixed(2)}x); ` +
      `bytes an answer: REST ${Math.round(restResult.bytesPerRequest)}, MCP ${Math.round(mcpResult.bytesPerRequest)}\n`,
  );
  return { entry, goal };
}

async function main(): Promise<void> {
  const duration = option('duration', 5);
  const connections = option('connections', 32);
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt >= 0 ? process.argv[onlyAt + 1]!.split(',') : null;
  const rounds = option('rounds', 3);
  const database = await openBenchDatabase('mcp_bench', 10);
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '100000000',
    EMBEDDINGS: 'none',
  });
  const services = createServices();
  const log = pino({ level: 'silent' });
  try {
    await migrate(database.knex);
    const { key, pairs } = await seedPairs(database.knex, { config, services, log }, only);

    const server = await startServer(database.url);
    const base = server.base;
    const auth = { Authorization: `Bearer ${key}` };
    const baseHeaders = {
      ...auth,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': PROTOCOL_VERSION,
    };

    const report: Record<string, unknown>[] = [];
    const goals: ReturnType<typeof atMost>[] = [];
    try {
      for (const pair of pairs) {
        const { entry, goal } = await comparePair(pair, { base, auth, baseHeaders, cpuMs: server.cpuMs, connections, duration, rounds });
        report.push(entry);
        goals.push(goal);
      }
    } finally {
      await server.stop();
    }
    const outDir = path.join(here, '..', 'out');
    await mkdir(outDir, { recursive: true });
    await writeFile(
      path.join(outDir, 'mcp-vs-rest.json'),
      `${JSON.stringify({ at: new Date().toISOString(), node: process.version, revision: PROTOCOL_VERSION, duration, connections, rounds, results: report }, null, 2)}\n`,
    );
    process.stdout.write(`\nwrote bench/out/mcp-vs-rest.json\n`);
    printGoals(`Goals (${connections} connections, ${rounds}×${duration}s each, this run):`, goals);
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
