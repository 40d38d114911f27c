/**
 * The feed sequencer loop: positions committed changes in the background (the positioning
 * itself is domain/feed.ts), so a feed reader finds at most the last moment's writes to position.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { sequencePending } from '../domain/feed.js';

export interface Sequencer {
  stop(): Promise<void>;
}

/**
 * Positions changes in the background every `intervalMs`, so a feed reader finds at most the
 * last moment's writes to position, not everything written since anyone last read the feed.
 */
export function startSequencer(db: Knex, log: Pick<Logger, 'warn'>, intervalMs = 500): Sequencer {
  let stopped = false;
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    // A tick while a long backlog is still being worked off is skipped, not queued.
    if (stopped || running) return;
    running = sequencePending(db)
      .then(
        () => undefined,
        (err: unknown) => log.warn({ err }, 'feed sequencer failed; will retry'),
      )
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
