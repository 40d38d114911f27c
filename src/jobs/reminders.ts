/**
 * The reminder loop: every REMINDER_POLL_SECONDS each process sends the reminders whose time
 * came (domain/items/reminders.ts claims them, so several processes never send one twice).
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { sendDueReminders } from '../domain/items/reminders.js';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';

export function startReminders(db: Knex, log: Pick<Logger, 'warn' | 'info'>, intervalMs: number, now: () => Date): IntervalLoop {
  return startIntervalLoop(
    async () => {
      const sent = await sendDueReminders(db, now());
      if (sent) log.info({ sent }, 'sent task reminders');
    },
    intervalMs,
    log,
    'sending reminders',
  );
}
