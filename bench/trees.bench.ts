/**
 * Two source trees of the server side by side on one database: the request cost of a change
 * against the code before it, in alternating rounds, so drift on a shared machine hits both
 * alike. Each tree's server runs from its sources (`node --import tsx src/main.ts`) in a
 * process of its own; each round loads one case on one of them, and reports throughput, p99
 * and the server's CPU time per request (from /proc, the steadiest of the three here).
 *
 *   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/
 *   npx tsx bench/trees.bench.ts --before /tmp/before [--rounds 4] [--duration 5] [--only get_item,first_parse]
 *
 * Cases: get_item, list_lists and a bad API key's 401 at 32 connections (each request counts
 * the token's and the address's rate limits and looks up the key first), and get_item's
 * latency while the server parses a 1 MB body for the first time (`first_parse`: a new item
 * each round, read for editing 300 ms into the load; the load stops when the read answers).
 * Prints one JSON line per round and the medians and ratios (this tree ÷ before) at the end;
 * writes bench/out/trees.json. Not a timed test: numbers depend on the machine.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { migrate } from '../src/store/db.js';
import { createUser } from '../src/domain/accounts/accounts.js';
import { createApiKey } from '../src/domain/accounts/api-keys.js';
import { generateBody } from './body-text.js';
import { openBenchDatabase, startBenchServer, type BenchServer as Server } from './support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const after = path.resolve(here, '..');

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function startServer(tree: string, databaseUrl: string): Promise<Server> {
  return startBenchServer(['--import', 'tsx', path.join(tree, 'src', 'main.ts')], databaseUrl, { cwd: tree, label: `the server of ${tree}`, readyMs: 120_000 });
}

interface Round {
  tree: 'before' | 'after';
  case: string;
  rps: number;
  p99: number;
  cpuMsPerRequest: number;
  non2xx: number;
  parseMs?: number;
}

interface Fixture {
  key: string;
  itemId: string;
  listId: string;
}

const headers = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

async function loadCase(server: Server, fixture: Fixture, name: string, duration: number): Promise<Omit<Round, 'tree'>> {
  const requests: Record<string, autocannon.Options> = {
    get_item: { url: `${server.base}/api/v1/items/${fixture.itemId}`, headers: headers(fixture.key) },
    list_lists: { url: `${server.base}/api/v1/lists`, headers: headers(fixture.key) },
    unauthorized: { url: `${server.base}/api/v1/lists`, headers: headers(`lk_${'z'.repeat(45)}`) },
  };
  const before = await server.cpuMs();
  const result = await autocannon({ ...requests[name]!, connections: 32, duration, pipelining: 1 });
  const spent = (await server.cpuMs()) - before;
  return {
    case: name,
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuMsPerRequest: spent / Math.max(1, result.requests.total),
    non2xx: name === 'unauthorized' ? result.requests.total - result.non2xx : result.non2xx,
  };
}

/** get_item at 32 connections while the server parses a new 1 MB body for the first time. */
async function firstParse(server: Server, fixture: Fixture): Promise<Omit<Round, 'tree'>> {
  const body = `# First parse ${Date.now()}\n\n${generateBody(999_000)}`.slice(0, 999_999);
  const created = await fetch(`${server.base}/api/v1/items`, {
    method: 'POST',
    headers: headers(fixture.key),
    body: JSON.stringify({ listId: fixture.listId, items: [{ title: 'a long body', body }] }),
  });
  if (!created.ok) throw new Error(`creating the 1 MB item: ${created.status} ${await created.text()}`);
  const id = ((await created.json()) as { items: { id: string }[] }).items[0]!.id;
  let parseMs = 0;
  const cpuBefore = await server.cpuMs();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const options = { url: `${server.base}/api/v1/items/${fixture.itemId}`, headers: headers(fixture.key), connections: 32, duration: 600, pipelining: 1 };
    const instance = autocannon(options, (err, res) => (err ? reject(err) : resolve(res)));
    setTimeout(async () => {
      const t0 = performance.now();
      const read = await fetch(`${server.base}/api/v1/items/${id}?forEditing=true`, { headers: headers(fixture.key) }).catch((e: unknown) => e as Error);
      parseMs = Math.round(performance.now() - t0);
      if (read instanceof Error || !read.ok) reject(new Error(`the forEditing read failed: ${read instanceof Error ? read.message : read.status}`));
      instance.stop();
    }, 300);
  });
  const spent = (await server.cpuMs()) - cpuBefore;
  return {
    case: 'first_parse',
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuMsPerRequest: spent / Math.max(1, result.requests.total),
    non2xx: result.non2xx,
    parseMs,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const beforeTree = option('before');
  if (!beforeTree) throw new Error('--before <directory of the tree to compare with> is required');
  const rounds = Number(option('rounds') ?? 4);
  const duration = Number(option('duration') ?? 5);
  const cases = (option('only') ?? 'get_item,list_lists,unauthorized,first_parse').split(',');
  const database = await openBenchDatabase('trees_bench', 4);
  const servers: Server[] = [];
  try {
    await migrate(database.knex);
    const user = await createUser(database.knex, { email: 'trees@example.com', name: 'Trees' });
    const key = await createApiKey(database.knex, user.id);
    const trees = { before: await startServer(path.resolve(beforeTree), database.url), after: await startServer(after, database.url) };
    servers.push(trees.before, trees.after);
    const list = (await (
      await fetch(`${trees.after.base}/api/v1/lists`, { method: 'POST', headers: headers(key), body: JSON.stringify({ name: 'Bench' }) })
    ).json()) as { id: string };
    const items = Array.from({ length: 20 }, (_, i) => ({ title: `Task ${i}`, body: `## Notes\n\n- step one\n- step two\n\nDetails for task ${i}.` }));
    const made = await fetch(`${trees.after.base}/api/v1/items`, { method: 'POST', headers: headers(key), body: JSON.stringify({ listId: list.id, items }) });
    const fixture: Fixture = { key, listId: list.id, itemId: ((await made.json()) as { items: { id: string }[] }).items[0]!.id };
    // Warm both (tsx's first compile, prepared statements on every pooled connection).
    for (const server of Object.values(trees)) await loadCase(server, fixture, 'get_item', 2);
    const all: Round[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate which tree goes first, so neither always runs on the fresher machine.
      const order = round % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const);
      for (const name of cases) {
        for (const tree of order) {
          const measured = name === 'first_parse' ? await firstParse(trees[tree], fixture) : await loadCase(trees[tree], fixture, name, duration);
          const row = { tree, ...measured, load: (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ') };
          all.push(row);
          console.log(JSON.stringify(row));
        }
      }
    }
    const summary = cases.map((name) => {
      const of = (tree: 'before' | 'after', f: (r: Round) => number) => all.filter((r) => r.case === name && r.tree === tree).map(f);
      const pairs = (f: (r: Round) => number) => of('after', f).map((a, i) => a / of('before', f)[i]!);
      return {
        case: name,
        before: { rps: median(of('before', (r) => r.rps)), p99: median(of('before', (r) => r.p99)), cpuMs: median(of('before', (r) => r.cpuMsPerRequest)) },
        after: { rps: median(of('after', (r) => r.rps)), p99: median(of('after', (r) => r.p99)), cpuMs: median(of('after', (r) => r.cpuMsPerRequest)) },
        // Round by round (after ÷ before): the median and the range, the spread to judge a gain by.
        cpuRatio: {
          median: median(pairs((r) => r.cpuMsPerRequest)),
          min: Math.min(...pairs((r) => r.cpuMsPerRequest)),
          max: Math.max(...pairs((r) => r.cpuMsPerRequest)),
        },
        p99Ratio: { median: median(pairs((r) => r.p99)), min: Math.min(...pairs((r) => r.p99)), max: Math.max(...pairs((r) => r.p99)) },
        rpsRatio: { median: median(pairs((r) => r.rps)), min: Math.min(...pairs((r) => r.rps)), max: Math.max(...pairs((r) => r.rps)) },
      };
    });
    console.log(JSON.stringify({ summary }, null, 1));
    await mkdir(path.join(here, 'out'), { recursive: true });
    await writeFile(path.join(here, 'out', 'trees.json'), JSON.stringify({ rounds: all, summary }, null, 2));
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await database.close();
  }
}

await main();
