/**
 * query_items' count and sum by one select option (issue 39's goal: within 20 ms p99 at
 * 100,000 items on a list, and writes that change values within 1.15x of writes without the
 * mechanism), three ways side by side on one database, in alternating rounds:
 *
 * - `none`: no counter; count and sum read item_values' indexes (`aggregateValues`);
 * - `tallies`: the deltas writers append and a fold moves into figures (`readTally`), as
 *   migration 20261126000300 made them;
 * - `counts`: the same figures kept in place by the triggers, each write adding its change to
 *   the option's row (`option_counts`, made here from the tallies' own functions, so the two
 *   differ only in appending against updating in place).
 *
 * Writes: create_items of 100 items with a select, a number and a text value, update_items
 * changing two values on those 100 (the operations called in process), with only that way's
 * triggers on; medians of each round's calls, and the ratio to `none` round by round. Reads:
 * on a list of 100,000 items (a third of them on the option asked), count and sum by the
 * option, 200 calls a round each way; p99 and median latency and this process's CPU a call.
 *
 * Run: npx tsx bench/option-counts.bench.ts [--rounds 6]   (embedded Postgres in .tmp/bench-pg, or DATABASE_URL)
 * Prints one JSON line per round and the summary.
 */
import { pino } from 'pino';
import type { Knex } from 'knex';
import { loadConfig } from '../src/core/config.js';
import { createServices } from '../src/core/services.js';
import type { OperationContext } from '../src/core/context.js';
import { migrate } from '../src/store/db.js';
import { createUser } from '../src/domain/accounts/accounts.js';
import { create_list } from '../src/operations/create_list.js';
import { create_items } from '../src/operations/create_items.js';
import { update_items } from '../src/operations/update_items.js';
import { aggregateValues } from '../src/domain/query/item-values.js';
import { foldTallies, readTally } from '../src/domain/query/tallies.js';
import { openBenchDatabase } from './support.js';

const ways = ['none', 'tallies', 'counts'] as const;
type Way = (typeof ways)[number];
const TALLY_TRIGGERS = ['items_tallies_inserted', 'items_tallies_updated', 'items_tallies_deleted'];
const COUNT_TRIGGERS = ['items_counts_inserted', 'items_counts_updated'];
const TRIGGERS: Record<Way, string[]> = { none: [], tallies: TALLY_TRIGGERS, counts: COUNT_TRIGGERS };
const ITEMS = 100;
const CALLS = 6;
const READS = 200;
const BIG = 100_000;

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]!;
const spread = (xs: number[]) => ({ median: +median(xs).toFixed(3), min: +Math.min(...xs).toFixed(3), max: +Math.max(...xs).toFixed(3) });

/** The counter kept in place: the tallies' figures, each write's change added to its row by the triggers. */
async function installCounts(db: Knex): Promise<void> {
  await db.raw(`CREATE TABLE option_counts (
      generation bigint NOT NULL, text_value text NOT NULL, summed text NOT NULL, archived boolean NOT NULL,
      n bigint NOT NULL, total numeric NOT NULL, PRIMARY KEY (generation, text_value, summed, archived))`);
  const upsert = (select: string) => `INSERT INTO option_counts AS o (generation, text_value, summed, archived, n, total)
      ${select} ORDER BY 1, 2, 3, 4
      ON CONFLICT (generation, text_value, summed, archived) DO UPDATE SET n = o.n + EXCLUDED.n, total = o.total + EXCLUDED.total`;
  await db.raw(`CREATE FUNCTION items_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${upsert(`SELECT c.generation, c.text_value, c.summed, c.archived, sum(c.n), sum(c.total)
          FROM new_rows i, item_tallies(i.list_id, i."values", i.archived_at IS NOT NULL, 1) c
         WHERE i.deleted_at IS NULL AND NOT i.is_template GROUP BY 1, 2, 3, 4`)};
      RETURN NULL;
    END $$`);
  await db.raw(
    'CREATE TRIGGER items_counts_inserted AFTER INSERT ON items REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION items_counts_inserted()',
  );
  await db.raw(`CREATE FUNCTION items_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${upsert(`SELECT d.generation, d.text_value, d.summed, d.archived, sum(d.n), sum(d.total) FROM (
          SELECT c.* FROM item_tallies(OLD.list_id, OLD."values", OLD.archived_at IS NOT NULL, -1) c WHERE OLD.deleted_at IS NULL AND NOT OLD.is_template
          UNION ALL
          SELECT c.* FROM item_tallies(NEW.list_id, NEW."values", NEW.archived_at IS NOT NULL, 1) c WHERE NEW.deleted_at IS NULL AND NOT NEW.is_template
        ) d GROUP BY 1, 2, 3, 4 HAVING sum(d.n) <> 0 OR sum(d.total) <> 0`)};
      RETURN NULL;
    END $$`);
  await db.raw(`CREATE TRIGGER items_counts_updated AFTER UPDATE ON items FOR EACH ROW
      WHEN (OLD."values" IS DISTINCT FROM NEW."values" OR OLD.list_id IS DISTINCT FROM NEW.list_id
            OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.archived_at IS DISTINCT FROM NEW.archived_at
            OR OLD.is_template IS DISTINCT FROM NEW.is_template)
      EXECUTE FUNCTION items_counts_updated()`);
}

async function setTriggers(db: Knex, way: Way): Promise<void> {
  for (const trigger of [...TALLY_TRIGGERS, ...COUNT_TRIGGERS])
    await db.raw(`ALTER TABLE items ${TRIGGERS[way].includes(trigger) ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
}

async function main(): Promise<void> {
  const rounds = option('rounds', 6);
  const database = await openBenchDatabase('option_counts_bench', 4);
  const db = database.knex;
  try {
    await migrate(db);
    await installCounts(db);
    const user = await createUser(db, { email: 'counts@example.com', name: 'Counts' });
    const ctx: OperationContext = {
      principal: { userId: user.id, via: 'apiKey', clientName: null, tokenId: `key:${user.id}` },
      db,
      config: loadConfig({ EMBEDDINGS: 'none' }),
      services: createServices(),
      log: pino({ level: 'silent' }),
    };
    const properties = [
      { name: 'Shelf', type: 'select', options: [{ label: 'Read' }, { label: 'Unread' }, { label: 'Lent' }] },
      { name: 'Pages', type: 'number' },
      { name: 'Author', type: 'text' },
    ];
    const writes = await create_list(ctx, { name: 'Writes', properties } as never);
    const big = await create_list(ctx, { name: 'Big', properties } as never);
    const row = (await db('lists').where({ id: big.id }).first('properties')) as { properties: { id: string; name: string; options?: { id: string }[] }[] };
    const shelf = row.properties.find((p) => p.name === 'Shelf')!;
    const pages = row.properties.find((p) => p.name === 'Pages')!.id;
    const read = shelf.options![0]!.id;
    // The big list, every way's triggers on, in batches of 10,000 straight into items.
    await setTriggers(db, 'tallies');
    await db.raw('ALTER TABLE items ENABLE TRIGGER items_counts_inserted');
    const opts = shelf.options!.map((o) => o.id);
    for (let from = 0; from < BIG; from += 10_000)
      await db.raw(
        `INSERT INTO items (owner_id, list_id, title, "values")
         SELECT ?, ?, 'Book ' || g, jsonb_build_object(?::text, (?::text[])[1 + g % 3], ?::text, g % 900)
           FROM generate_series(?::int, ?::int) g`,
        [user.id, big.id, shelf.id, opts, pages, from, from + 9_999],
      );
    while ((await foldTallies(db)) > 0);
    await db.raw('VACUUM ANALYZE');

    const condition = [{ kind: 'option' as const, propertyId: shelf.id, sql: 'text_value = ?', value: read }];
    const readers: Record<Way, (sum: boolean) => Promise<{ count: number; sum: number | null }>> = {
      none: (sum) => aggregateValues(db, big.id, condition, { includeArchived: false, ...(sum ? { sumPropertyId: pages } : {}) }),
      tallies: async (sum) => (await readTally(db, big.id, shelf.id, read, { includeArchived: false, ...(sum ? { sumPropertyId: pages } : {}) }))!,
      counts: async (sum) => {
        const { rows } = await db.raw(
          `SELECT coalesce(sum(o.n) FILTER (WHERE o.summed = ''), 0)::int AS count, coalesce(sum(o.total) FILTER (WHERE o.summed = ?), 0)::float8 AS sum
             FROM option_counts o JOIN tallied_properties t ON t.generation = o.generation
            WHERE t.list_id = ? AND t.property_id = ? AND o.text_value = ? AND o.summed IN ('', ?) AND NOT o.archived`,
          [pages, big.id, shelf.id, read, pages],
        );
        return { count: rows[0].count, sum: sum ? rows[0].sum : null };
      },
    };
    const expected = await readers.none(true);
    for (const way of ways) {
      const answer = await readers[way](true);
      if (answer.count !== expected.count || answer.sum !== expected.sum)
        throw new Error(`${way} answered ${JSON.stringify(answer)}, not ${JSON.stringify(expected)}`);
    }

    const writeMs: Record<Way, { create: number[]; update: number[] }> = {
      none: { create: [], update: [] },
      tallies: { create: [], update: [] },
      counts: { create: [], update: [] },
    };
    const readMs: Record<Way, { count: number[]; sum: number[]; countCpu: number[]; sumCpu: number[] }> = {
      none: { count: [], sum: [], countCpu: [], sumCpu: [] },
      tallies: { count: [], sum: [], countCpu: [], sumCpu: [] },
      counts: { count: [], sum: [], countCpu: [], sumCpu: [] },
    };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...ways].reverse() : [...ways];
      for (const way of order) {
        await setTriggers(db, way);
        const creates: number[] = [];
        const updates: number[] = [];
        for (let call = 0; call < CALLS; call++) {
          let t0 = performance.now();
          const made = await create_items(ctx, {
            listId: writes.id,
            items: Array.from({ length: ITEMS }, (_, i) => ({
              title: `r${round} c${call} i${i}`,
              values: { Shelf: 'Unread', Pages: 100 + i, Author: `A${i}` },
            })),
          } as never);
          creates.push(performance.now() - t0);
          t0 = performance.now();
          await update_items(ctx, { items: made.items.map((item, i) => ({ itemId: item.id, values: { Shelf: 'Read', Pages: 200 + i } })) } as never);
          updates.push(performance.now() - t0);
        }
        writeMs[way].create.push(median(creates));
        writeMs[way].update.push(median(updates));
        for (const sum of [false, true]) {
          const latencies: number[] = [];
          const cpu0 = process.cpuUsage();
          for (let i = 0; i < READS; i++) {
            const t0 = performance.now();
            await readers[way](sum);
            latencies.push(performance.now() - t0);
          }
          const cpu = process.cpuUsage(cpu0);
          readMs[way][sum ? 'sum' : 'count'].push(p99(latencies));
          readMs[way][sum ? 'sumCpu' : 'countCpu'].push((cpu.user + cpu.system) / 1000 / READS);
        }
        await db('outbox').delete();
        console.log(
          JSON.stringify({
            round,
            way,
            createMs: writeMs[way].create.at(-1),
            updateMs: writeMs[way].update.at(-1),
            countP99: readMs[way].count.at(-1),
            sumP99: readMs[way].sum.at(-1),
          }),
        );
      }
      while ((await foldTallies(db)) > 0);
    }
    const ratio = (way: Way, step: 'create' | 'update') => spread(writeMs[way][step].map((t, i) => t / writeMs.none[step][i]!));
    console.log(
      JSON.stringify(
        {
          writesMedianMs: Object.fromEntries(
            ways.map((w) => [w, { create: +median(writeMs[w].create).toFixed(2), update: +median(writeMs[w].update).toFixed(2) }]),
          ),
          writesToNone: Object.fromEntries(ways.slice(1).map((w) => [w, { create: ratio(w, 'create'), update: ratio(w, 'update') }])),
          readsAt100k: Object.fromEntries(
            ways.map((w) => [
              w,
              {
                countP99Ms: spread(readMs[w].count),
                sumP99Ms: spread(readMs[w].sum),
                countClientCpuMs: spread(readMs[w].countCpu),
                sumClientCpuMs: spread(readMs[w].sumCpu),
              },
            ]),
          ),
        },
        null,
        1,
      ),
    );
  } finally {
    await database.close();
  }
}

await main();
