/**
 * The guard's statement before a request's operation (count the token's and the address's
 * limits, find the API key) from two source trees side by side, called in process on one
 * database in alternating rounds: one call at a time, and 32 at once (where calls counting
 * the same buckets are grouped). Each call counts a token and an address and looks up an
 * existing key, as an authenticated request does.
 *
 *   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/
 *   npx tsx bench/auth-statement.bench.ts --before /tmp/before [--rounds 10] [--calls 2000]
 *
 * The tree before is called through its own rate-limits module: `countRequests` with the key
 * lookup spliced in (before issue 39), or `countAndAuthenticate`. Prints the medians of each
 * round's milliseconds per call and the round-by-round ratios (this tree ÷ before).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { migrate } from '../src/store/db.js';
import { createUser } from '../src/domain/accounts/accounts.js';
import { createApiKey, hashToken } from '../src/domain/accounts/api-keys.js';
import { countAndAuthenticate } from '../src/domain/accounts/rate-limits.js';
import { openBenchDatabase } from './support.js';
import type { Knex } from 'knex';

type Count = (db: Knex, hash: string, address: string) => Promise<string | null>;

function option(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const buckets = (hash: string, address: string) => [
  { bucket: `t:${hash.slice(0, 40)}`, limit: 100_000_000 },
  { bucket: `a:${address}`, limit: 100_000_000 },
];

async function countBefore(tree: string): Promise<Count> {
  const domain = path.join(tree, 'src', 'domain', 'accounts');
  const limits = (await import(pathToFileURL(path.join(domain, 'rate-limits.ts')).href)) as Record<string, unknown>;
  if (typeof limits.countAndAuthenticate === 'function') {
    const count = limits.countAndAuthenticate as typeof countAndAuthenticate;
    return async (db, hash, address) => (await count(db, buckets(hash, address), hash)).apiKey?.userId ?? null;
  }
  const keys = (await import(pathToFileURL(path.join(domain, 'api-keys.ts')).href)) as { apiKeyLookup(hash: string): unknown };
  const count = limits.countRequests as (db: Knex, b: unknown, now?: Date, extra?: unknown) => Promise<{ extra?: unknown }>;
  return async (db, hash, address) =>
    ((await count(db, buckets(hash, address), new Date(), keys.apiKeyLookup(hash))).extra as { user_id: string } | null)?.user_id ?? null;
}

const countAfter: Count = async (db, hash, address) => (await countAndAuthenticate(db, buckets(hash, address), hash)).apiKey?.userId ?? null;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const before = option('before');
  if (!before) throw new Error('--before <directory of the tree to compare with> is required');
  const rounds = Number(option('rounds', '10'));
  const calls = Number(option('calls', '2000'));
  const database = await openBenchDatabase('auth_statement_bench', 10);
  const db = database.knex;
  try {
    await migrate(db);
    const user = await createUser(db, { email: 'auth@example.com', name: 'Auth' });
    const hash = hashToken(await createApiKey(db, user.id));
    const variants: Record<'before' | 'after', Count> = { before: await countBefore(path.resolve(before)), after: countAfter };
    const times = { before: { one: [] as number[], many: [] as number[] }, after: { one: [] as number[], many: [] as number[] } };
    for (const variant of ['before', 'after'] as const) {
      if ((await variants[variant](db, hash, '127.0.0.1')) !== user.id) throw new Error(`${variant} did not find the key`);
    }
    for (let round = 0; round < rounds; round++) {
      for (const variant of round % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
        const count = variants[variant];
        let t0 = performance.now();
        for (let i = 0; i < calls / 4; i++) await count(db, hash, '127.0.0.1');
        times[variant].one.push((performance.now() - t0) / (calls / 4));
        t0 = performance.now();
        for (let i = 0; i < calls / 32; i++) await Promise.all(Array.from({ length: 32 }, () => count(db, hash, '127.0.0.1')));
        times[variant].many.push((performance.now() - t0) / (Math.floor(calls / 32) * 32));
      }
    }
    const ratios = (kind: 'one' | 'many') => times.after[kind].map((t, i) => t / times.before[kind][i]!).sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        msPerCall: {
          before: { one: median(times.before.one), many: median(times.before.many) },
          after: { one: median(times.after.one), many: median(times.after.many) },
        },
        ratioOne: { median: median(ratios('one')), min: ratios('one')[0], max: ratios('one').at(-1) },
        ratioMany: { median: median(ratios('many')), min: ratios('many')[0], max: ratios('many').at(-1) },
      }),
    );
  } finally {
    await database.close();
  }
}

await main();
