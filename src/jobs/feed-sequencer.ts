/**
 * The feed sequencer loop: positions committed changes in the background (the positioning
 * itself is domain/changes/feed.ts), so a feed reader finds at most the last moment's writes to position.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { sequencePending } from '../domain/changes/feed.js';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';

export type Sequencer = IntervalLoop;

/**
 * Positions changes in the background every `intervalMs`, so a feed reader finds at most the
 * last moment's writes to position, not everything written since anyone last read the feed.
 */
export function startSequencer(db: Knex, log: Pick<Logger, 'warn'>, intervalMs = 500): Sequencer {
  return startIntervalLoop(
    async () => {
      await sequencePending(db);
    },
    intervalMs,
    log,
    'feed sequencer',
  );
}
