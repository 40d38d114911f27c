/**
 * The tallies' loop: every second each process builds the figures of registrations that wait
 * for it and folds the deltas writers appended (domain/query/tallies.ts; one process folds at
 * a time). A backlog (after the migration, every select property of every list) is built and
 * folded batch after batch in the same run.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { buildTallies, foldTallies } from '../domain/query/tallies.js';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';

const FOLD_BATCH = 10_000;
const BUILD_BATCH = 20;

export function startTallies(db: Knex, log: Pick<Logger, 'warn' | 'info'>, intervalMs = 1000): IntervalLoop {
  return startIntervalLoop(
    async () => {
      // A build that fails does not hold back the fold: reads would slow as deltas pile up.
      await build(db, log).catch((err: unknown) => log.warn({ err }, 'building value tallies failed; will retry'));
      while ((await foldTallies(db, FOLD_BATCH)) === FOLD_BATCH);
    },
    intervalMs,
    log,
    'folding value tallies',
  );
}

async function build(db: Knex, log: Pick<Logger, 'info'>): Promise<void> {
  let built = 0;
  let last: number;
  do {
    last = await buildTallies(db, BUILD_BATCH);
    built += last;
  } while (last === BUILD_BATCH);
  if (built) log.info({ built }, 'built value tallies');
}
