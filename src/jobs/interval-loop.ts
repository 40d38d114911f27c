/**
 * A background loop: `work` every `intervalMs`, never two at once (a tick while the last run
 * is still busy is skipped, not queued), errors logged and retried on the next tick; `stop`
 * waits for the run in hand. The feed sequencer and the reminder loop are two of these.
 */
import type { Logger } from 'pino';

export interface IntervalLoop {
  stop(): Promise<void>;
}

export function startIntervalLoop(work: () => Promise<void>, intervalMs: number, log: Pick<Logger, 'warn'>, what: string): IntervalLoop {
  let stopped = false;
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = work()
      .catch((err: unknown) => log.warn({ err }, `${what} failed; will retry`))
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
