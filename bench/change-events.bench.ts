/**
 * What the change-event triggers (migration 20261125000100) cost a write: create_items of 100
 * items and update_items of those 100, measured side by side in one run, in interleaved rounds:
 *   - off:          the triggers disabled (what a write cost before change events),
 *   - unsubscribed: the triggers on, the owner subscribed to nothing (one EXISTS per row),
 *   - subscribed:   the owner subscribed to item.created and item.updated (an outbox row per item).
 * Run: npx tsx bench/change-events.bench.ts   (embedded Postgres in .tmp/bench-pg, or DATABASE_URL)
 * Prints one JSON line: the median and minimum milliseconds per call of each variant, and their
 * ratios to `off`.
 */
import { pino } from 'pino';
import { loadConfig } from '../src/core/config.js';
import { createServices } from '../src/core/services.js';
import type { OperationContext } from '../src/core/context.js';
import { migrate } from '../src/store/db.js';
import { createUser } from '../src/domain/accounts/accounts.js';
import { create_items } from '../src/operations/create_items.js';
import { update_items } from '../src/operations/update_items.js';
import { openBenchDatabase } from './support.js';

const ROUNDS = 9;
const CALLS = 10;
const ITEMS = 100;
type Variant = 'off' | 'unsubscribed' | 'subscribed';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const database = await openBenchDatabase('events_bench', 4);
  const db = database.knex;
  try {
    await migrate(db);
    const config = loadConfig({ EMBEDDINGS: 'none' });
    const contexts = {} as Record<Variant, OperationContext>;
    for (const variant of ['off', 'unsubscribed', 'subscribed'] as const) {
      const user = await createUser(db, { email: `${variant}@example.com`, name: variant });
      contexts[variant] = {
        principal: { userId: user.id, via: 'apiKey', clientName: null, tokenId: `key:${user.id}` },
        db,
        config,
        services: createServices(),
        log: pino({ level: 'silent' }),
      };
      if (variant === 'subscribed')
        await db('event_subscriptions').insert({
          user_id: user.id,
          via: 'rest',
          url: 'https://example.com/x',
          secret: 'whsec_x',
          events: ['item.created', 'item.updated'],
          status: 'active',
        });
    }
    const times: Record<Variant, { create: number[]; update: number[] }> = {
      off: { create: [], update: [] },
      unsubscribed: { create: [], update: [] },
      subscribed: { create: [], update: [] },
    };
    for (let round = 0; round < ROUNDS; round++) {
      // The order rotates each round, so a slow moment of the machine falls on each variant alike.
      const order = (['off', 'unsubscribed', 'subscribed'] as const).map((_, i, all) => all[(i + round) % all.length]!);
      for (const variant of order) {
        for (const trigger of ['items_created_events', 'items_changed_event'])
          await db.raw(`ALTER TABLE items ${variant === 'off' ? 'DISABLE' : 'ENABLE'} TRIGGER ${trigger}`);
        const ctx = contexts[variant];
        for (let call = 0; call < CALLS; call++) {
          let started = performance.now();
          const made = await create_items(ctx, { items: Array.from({ length: ITEMS }, (_, i) => ({ title: `r${round} c${call} i${i}` })) });
          times[variant].create.push(performance.now() - started);
          started = performance.now();
          await update_items(ctx, { items: made.items.map((item) => ({ itemId: item.id, title: `${item.title} (edited)` })) });
          times[variant].update.push(performance.now() - started);
        }
        // Keep the outbox from growing across rounds (no pump runs here).
        await db('outbox').delete();
      }
    }
    for (const trigger of ['items_created_events', 'items_changed_event']) await db.raw(`ALTER TABLE items ENABLE TRIGGER ${trigger}`);
    const summary = (variant: Variant) => ({
      createMedianMs: +median(times[variant].create).toFixed(2),
      createMinMs: +Math.min(...times[variant].create).toFixed(2),
      updateMedianMs: +median(times[variant].update).toFixed(2),
      updateMinMs: +Math.min(...times[variant].update).toFixed(2),
    });
    const off = summary('off');
    const ratio = (variant: Variant) => {
      const s = summary(variant);
      return { create: +(s.createMedianMs / off.createMedianMs).toFixed(3), update: +(s.updateMedianMs / off.updateMedianMs).toFixed(3) };
    };
    process.stdout.write(
      `${JSON.stringify({
        items: ITEMS,
        calls: ROUNDS * CALLS,
        off,
        unsubscribed: summary('unsubscribed'),
        subscribed: summary('subscribed'),
        ratioToOff: { unsubscribed: ratio('unsubscribed'), subscribed: ratio('subscribed') },
      })}\n`,
    );
  } finally {
    await database.close();
  }
}

await main();
