/**
 * Reminders on tasks: `reminderAt` as callers write it (an instant, words, or a time before the
 * due date), and sending the ones whose time came. A reminder written relative to the due
 * date, or set on a task that has one, keeps its offset, so it moves with the due date and
 * with each occurrence of a repeating task. Sending claims the due reminders with
 * FOR UPDATE SKIP LOCKED and marks each sent in the transaction that writes its event and its
 * notice to the person to the outbox, so a reminder is sent once across every process and restart.
 * @see openapi/openapi.yaml webhook task.reminder, components/schemas/ReminderInput
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { EVENT_TOPIC, REMINDER, type EventOccurrence } from '../changes/events.js';
import { readDueAt } from './items.js';
import { emit } from '../changes/outbox.js';
import { emitNotice } from '../changes/notices.js';
import { ValueError } from '../lists/values.js';

/** A reminder more than this late when first seen (the service was down) is dropped, not sent. */
export const REMINDER_GRACE_MS = 24 * 3600 * 1000;
const BATCH = 200;

const UNITS: Record<string, number> = { minute: 1, min: 1, hour: 60, hr: 60, day: 1440, week: 10080 };

/** What the columns become for `reminderAt` written as `text`: cleared (""), an offset before the due date, or an instant. */
export function readReminder(
  text: string,
  due: Date | null,
  timeZone: string,
  now: Date,
): { reminder_at: Date | null; reminder_offset_minutes: number | null; reminded_at: null } {
  const t = text.trim().toLowerCase();
  if (t === '' || t === 'none') return { reminder_at: null, reminder_offset_minutes: null, reminded_at: null };
  const relative =
    /^(\d{1,4})\s*(minute|min|hour|hr|day|week)s?\s+before(\s+(it is )?due)?$/.exec(t) ?? (/^at (the )?due( time)?$/.test(t) ? ['', '0', 'minute'] : null);
  if (relative) {
    if (!due) throw new ValueError(`reminderAt '${text}' is relative to the due date, and the task has none; give it a due date, or a reminder time.`);
    const offset = Number(relative[1]) * UNITS[relative[2]!]!;
    return { reminder_at: new Date(due.getTime() - offset * 60_000), reminder_offset_minutes: offset, reminded_at: null };
  }
  const at = readDueAt(text, timeZone, now);
  if (!at)
    throw new ValueError(
      `reminderAt '${text}' is not an instant, a time in words such as 'tomorrow 8am', or a time before the due date such as '30 minutes before'.`,
    );
  // Set on a task with a due date, it keeps its distance to it (and moves with it).
  const offset = due ? Math.round((due.getTime() - at.dueAt.getTime()) / 60_000) : null;
  return { reminder_at: at.dueAt, reminder_offset_minutes: offset, reminded_at: null };
}

/** The reminder columns after the due date moved to `due`: an offset reminder follows it; none when the due date is cleared. */
export function followDue(offsetMinutes: number | null, due: Date | null): { reminder_at: Date; reminded_at: null } | null {
  if (offsetMinutes === null || !due) return null;
  return { reminder_at: new Date(due.getTime() - offsetMinutes * 60_000), reminded_at: null };
}

interface DueReminder {
  id: string;
  owner_id: string;
  list_id: string;
  title: string | null;
  reminder_at: Date;
  due_at: Date | null;
}

/**
 * Sends the reminders whose time came by `now`, a batch at a time: each is claimed, marked sent
 * and its `task.reminder` event written in one transaction. Returns how many were sent.
 */
export async function sendDueReminders(db: Knex, now: Date): Promise<number> {
  let sent = 0;
  for (;;) {
    const batch = await db.transaction(async (trx) => {
      const due = (await trx('items')
        .whereNotNull('reminder_at')
        .where('reminder_at', '<=', now)
        .where((q) => q.whereNull('reminded_at').orWhereRaw('reminded_at < reminder_at'))
        .whereNull('deleted_at')
        .whereNull('archived_at')
        .whereRaw(`task_status IS DISTINCT FROM 'completed'`)
        .orderBy('reminder_at')
        .limit(BATCH)
        .forUpdate()
        .skipLocked()
        .select('id', 'owner_id', 'list_id', 'title', 'reminder_at', 'due_at')) as DueReminder[];
      let emitted = 0;
      for (const r of due) {
        if (now.getTime() - r.reminder_at.getTime() <= REMINDER_GRACE_MS) {
          await emit(trx, EVENT_TOPIC, r.id, reminderOccurrence(r, now) as unknown as Record<string, unknown>);
          await emitNotice(trx, {
            kind: 'reminder',
            userId: r.owner_id,
            itemId: r.id,
            title: r.title,
            dueAt: r.due_at?.toISOString() ?? null,
            occurredAt: now.toISOString(),
          });
          emitted++;
        }
      }
      if (due.length)
        await trx('items')
          .whereIn(
            'id',
            due.map((r) => r.id),
          )
          .update({ reminded_at: trx.raw('reminder_at') });
      return { claimed: due.length, emitted };
    });
    sent += batch.emitted;
    if (batch.claimed < BATCH) return sent;
  }
}

function reminderOccurrence(r: DueReminder, now: Date): EventOccurrence {
  return {
    eventId: `evt_${randomUUID().replace(/-/g, '')}`,
    type: REMINDER,
    name: REMINDER,
    timestamp: now.toISOString(),
    data: {
      itemId: r.id,
      listId: r.list_id,
      title: r.title,
      reminderAt: r.reminder_at.toISOString(),
      dueAt: r.due_at?.toISOString() ?? null,
      occurredAt: now.toISOString(),
    },
    cursor: null,
  };
}
