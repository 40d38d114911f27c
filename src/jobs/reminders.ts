/**
 * The reminder loop: every REMINDER_POLL_SECONDS each process sends the reminders whose time
 * came (domain/reminders.ts claims them, so several processes never send one twice).
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { sendDueReminders } from '../domain/reminders.js';

export interface ReminderLoop {
  stop(): Promise<void>;
}

export function startReminders(db: Knex, log: Pick<Logger, 'warn' | 'info'>, intervalMs: number, now: () => Date): ReminderLoop {
  let stopped = false;
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = sendDueReminders(db, now())
      .then(
        (sent) => {
          if (sent) log.info({ sent }, 'sent task reminders');
        },
        (err: unknown) => log.warn({ err }, 'sending reminders failed; will retry'),
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
