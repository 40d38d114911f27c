/**
 * Due dates as people write them ("tomorrow 9am", "next friday", "2026-12-01 14:00"), read
 * with chrono-node in the person's time zone: for the command line and for imports (a
 * Todoist or CSV due date).
 */
import * as chrono from 'chrono-node';
import { localToUtc, zoneOffsetMinutes } from '../time.js';

export interface Due {
  /** What to send as `dueAt`: a date (YYYY-MM-DD) when no time was given, else the instant. */
  value: string;
  /** The instant understood (the start of the day for a date). */
  at: Date;
  hasTime: boolean;
}

/**
 * The longest text read as words, as the API's `dueAt` (maxLength 64): the reader's cost grows
 * with the square of the length, and imports and the command line come here without the API's
 * schema in front.
 */
export const DUE_WORDS_MAX = 64;

/** Reads `text` as a due date at `now` in `timeZone`; null when it is not one date, whole, or longer than DUE_WORDS_MAX. */
export function parseDue(text: string, timeZone: string, now: Date = new Date()): Due | null {
  if (text.length > DUE_WORDS_MAX) return null;
  const results = chrono.parse(text, { instant: now, timezone: zoneOffsetMinutes(now, timeZone) }, { forwardDate: true });
  const [found] = results;
  // Words chrono skipped ("tomorow 9am" reads as 9am only) would be a silent misreading: refuse instead.
  if (!found || results.length > 1 || /[\p{L}\p{N}]/u.test(text.slice(0, found.index) + text.slice(found.index + found.text.length))) return null;
  const start = found.start;
  const hasTime = start.isCertain('hour');
  const [year, month, day] = [start.get('year')!, start.get('month')!, start.get('day')!];
  const at = localToUtc(year, month, day, hasTime ? (start.get('hour') ?? 0) : 0, hasTime ? (start.get('minute') ?? 0) : 0, timeZone);
  const date = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
  return { value: hasTime ? at.toISOString() : date, at, hasTime };
}
