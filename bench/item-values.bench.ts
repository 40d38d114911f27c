/**
 * What the item_values triggers (migration 20261126000100) and the tallies' (kept in place,
 * 20261201000100) cost a write, side by side in one run, in interleaved rounds with the triggers off, with
 * item_values' on (`on`), and with both on (`tallied`): create_items of 100 items with
 * three values each (a select, a number, a text), update_items of those 100 changing two
 * values each (the row trigger rewrites their rows), and update_items of their titles only
 * (the trigger's condition is false: nothing to do).
 * Run: npx tsx bench/item-values.bench.ts   (embedded Postgres in .tmp/bench-pg, or DATABASE_URL)
 * Prints one JSON line: medians in milliseconds per call, the ratio of on to off and of tallied
 * to on, and the ratios of tallied and of `unlocked` (below) to on round by round (median,
 * lowest, highest: the spread).
 */
import { pino } from 'pino';
import { loadConfig } from '../src/core/config.js';
import { createServices } from '../src/core/services.js';
import type { OperationContext } from '../src/core/context.js';
import { migrate } from '../src/store/db.js';
import { createUser } from '../src/domain/accounts/accounts.js';
import { create_list } from '../src/operations/create_list.js';
import { create_items } from '../src/operations/create_items.js';
import { update_items } from '../src/operations/update_items.js';
import { openBenchDatabase } from './support.js';

const ROUNDS = 8;
const CALLS = 8;
const ITEMS = 100;
// Each variant's triggers on items; every other value trigger is off while it runs.
const VALUE_TRIGGERS = ['items_values_inserted', 'items_values_updated'];
const TALLY_TRIGGERS = ['items_tallies_inserted', 'items_tallies_updated', 'items_tallies_deleted'];
// `unlocked`: the tallies' update trigger without its statement that holds the list FOR SHARE
// (made here from the real one), to see what that statement costs.
const UNLOCKED = 'items_tallies_updated_unlocked';
const VARIANTS = {
  off: [],
  on: VALUE_TRIGGERS,
  tallied: [...VALUE_TRIGGERS, ...TALLY_TRIGGERS],
  unlocked: [...VALUE_TRIGGERS, 'items_tallies_inserted', 'items_tallies_deleted', UNLOCKED],
} as const;
const ALL_TRIGGERS = [...VALUE_TRIGGERS, ...TALLY_TRIGGERS, UNLOCKED];
type Variant = keyof typeof VARIANTS;
type Step = 'create' | 'updateValues' | 'updateTitles';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const database = await openBenchDatabase('values_bench', 4);
  const db = database.knex;
  try {
    await migrate(db);
    const real = (await db.raw(`SELECT pg_get_functiondef('items_tallies_updated'::regproc) AS def`)).rows[0].def as string;
    const unlocked = real.replace('items_tallies_updated()', `${UNLOCKED}()`).replace(/PERFORM 1 FROM lists[^;]*FOR SHARE;/, '');
    if (unlocked === real || unlocked.includes('FOR SHARE')) throw new Error('the tallies trigger no longer reads as this bench expects');
    await db.raw(unlocked);
    const when = (await db.raw(`SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgname = 'items_tallies_updated'`)).rows[0].def as string;
    await db.raw(when.replace('TRIGGER items_tallies_updated', `TRIGGER ${UNLOCKED}`).replace('items_tallies_updated()', `${UNLOCKED}()`));
    const user = await createUser(db, { email: 'values@example.com', name: 'Values' });
    const ctx: OperationContext = {
      principal: { userId: user.id, via: 'apiKey', clientName: null, tokenId: `key:${user.id}` },
      db,
      config: loadConfig({ EMBEDDINGS: 'none' }),
      services: createServices(),
      log: pino({ level: 'silent' }),
    };
    const list = await create_list(ctx, {
      name: 'Books',
      properties: [
        { name: 'Shelf', type: 'select', options: [{ label: 'Read' }, { label: 'Unread' }] },
        { name: 'Pages', type: 'number' },
        { name: 'Author', type: 'text' },
      ],
    } as never);
    const times: Record<Variant, Record<Step, number[]>> = {
      off: { create: [], updateValues: [], updateTitles: [] },
      on: { create: [], updateValues: [], updateTitles: [] },
      tallied: { create: [], updateValues: [], updateTitles: [] },
      unlocked: { create: [], updateValues: [], updateTitles: [] },
    };
    const timed = async (variant: Variant, step: Step, run: () => Promise<unknown>) => {
      const started = performance.now();
      await run();
      times[variant][step].push(performance.now() - started);
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating which goes first, so a slow moment of the machine falls on both alike.
      const order = Object.keys(VARIANTS) as Variant[];
      for (const variant of round % 2 === 0 ? order : order.reverse()) {
        for (const trigger of ALL_TRIGGERS)
          await db.raw(`ALTER TABLE items ${(VARIANTS[variant] as readonly string[]).includes(trigger) ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
        for (let call = 0; call < CALLS; call++) {
          let made: Awaited<ReturnType<typeof create_items>> | undefined;
          await timed(variant, 'create', async () => {
            made = await create_items(ctx, {
              listId: list.id,
              items: Array.from({ length: ITEMS }, (_, i) => ({
                title: `r${round} c${call} i${i}`,
                values: { Shelf: 'Unread', Pages: 100 + i, Author: `A${i}` },
              })),
            } as never);
          });
          const ids = made!.items.map((item) => item.id);
          await timed(variant, 'updateValues', () =>
            update_items(ctx, { items: ids.map((itemId, i) => ({ itemId, values: { Shelf: 'Read', Pages: 200 + i } })) } as never),
          );
          await timed(variant, 'updateTitles', () => update_items(ctx, { items: ids.map((itemId, i) => ({ itemId, title: `edited ${i}` })) } as never));
        }
        await db('outbox').delete();
      }
    }
    for (const trigger of [...VALUE_TRIGGERS, ...TALLY_TRIGGERS]) await db.raw(`ALTER TABLE items ENABLE TRIGGER ${trigger}`);
    await db.raw(`ALTER TABLE items DISABLE TRIGGER ${UNLOCKED}`);
    const summary = (variant: Variant) =>
      Object.fromEntries((Object.keys(times[variant]) as Step[]).map((step) => [step, +median(times[variant][step]).toFixed(2)]));
    const off = summary('off');
    const on = summary('on');
    const tallied = summary('tallied');
    const ratio = (a: Record<string, number>, b: Record<string, number>) =>
      Object.fromEntries(Object.keys(b).map((step) => [step, +(a[step]! / b[step]!).toFixed(3)]));
    // Each round's median of tallied over on's, per step.
    const perRound = Object.fromEntries(
      (Object.keys(times.on) as Step[]).map((step) => {
        const of = (variant: Variant, r: number) => median(times[variant][step].slice(r * CALLS, (r + 1) * CALLS));
        const spread = (variant: Variant) => {
          const ratios = Array.from({ length: ROUNDS }, (_, r) => of(variant, r) / of('on', r));
          return { median: +median(ratios).toFixed(3), min: +Math.min(...ratios).toFixed(3), max: +Math.max(...ratios).toFixed(3) };
        };
        return [step, { tallied: spread('tallied'), unlocked: spread('unlocked') }];
      }),
    );
    process.stdout.write(
      `${JSON.stringify({ items: ITEMS, calls: ROUNDS * CALLS, offMedianMs: off, onMedianMs: on, talliedMedianMs: tallied, ratioOnToOff: ratio(on, off), ratioTalliedToOn: ratio(tallied, on), toOnByRound: perRound })}\n`,
    );
  } finally {
    await database.close();
  }
}

await main();
