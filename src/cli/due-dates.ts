/**
 * Due dates as people type them, read by src/domain/items/due-words.ts (chrono-node, in the person's
 * time zone), and shown back in it. The arithmetic of zones is the service's own
 * (src/domain/time.ts, pure functions), so the command and the enrich pass agree.
 */
import { localNow } from '../domain/time.js';

export { parseDue, type Due } from '../domain/items/due-words.js';

/** A due date for a sentence: "Tue 25 Nov 2026 09:00 Europe/London", or the day alone. */
export function describeDue(at: Date, hasTime: boolean, timeZone: string): string {
  const day = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }).format(at).replace(',', '');
  return hasTime ? `${day} ${localNow(at, timeZone).localTime} ${timeZone}` : `${day} (no time of day)`;
}

/** A due date for a table cell: "2026-11-25 09:00", or "2026-11-25"; empty for none. */
export function shortDue(dueAt: string | null, hasTime: boolean | null, timeZone: string): string {
  if (!dueAt) return '';
  const local = localNow(new Date(dueAt), timeZone);
  return hasTime ? `${local.today} ${local.localTime}` : local.today;
}

/** The time zone of this machine, for when the person's is not known yet. */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
