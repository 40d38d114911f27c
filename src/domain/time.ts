/** Dates in the person's time zone. */

/** Today's date (YYYY-MM-DD) and local time (HH:MM) at `at` in `timeZone`. */
export function localNow(at: Date, timeZone: string): { today: string; localTime: string } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return { today: `${get('year')}-${get('month')}-${get('day')}`, localTime: `${get('hour')}:${get('minute')}` };
}

/** The instant at which the local day containing `at` starts in `timeZone`. */
export function startOfLocalDay(at: Date, timeZone: string): Date {
  const local = localParts(at, timeZone);
  // Find the UTC instant whose local date-time is that day 00:00, correcting for the zone offset.
  const guess = utcDate(local.year, local.month, local.day, 0, 0, 0);
  return new Date(guess.getTime() - zoneOffsetMs(guess, timeZone));
}

/** The instant of a local wall-clock time in `timeZone` (month 1-12), right across DST changes. */
export function localToUtc(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): Date {
  const wall = utcDate(year, month, day, hour, minute, 0).getTime();
  const first = wall - zoneOffsetMs(new Date(wall), timeZone);
  return new Date(wall - zoneOffsetMs(new Date(first), timeZone));
}

/** Minutes east of UTC of `timeZone` at `at`. */
export function zoneOffsetMinutes(at: Date, timeZone: string): number {
  return Math.round(zoneOffsetMs(at, timeZone) / 60000);
}

function zoneOffsetMs(at: Date, timeZone: string): number {
  const p = localParts(at, timeZone);
  return utcDate(p.year, p.month, p.day, p.hour, p.minute, p.second).getTime() - (at.getTime() - at.getUTCMilliseconds());
}

/** The wall-clock fields of `at` in `timeZone`, as numbers (month 1-12; astronomical years: 1 BC is 0). */
export function localParts(at: Date, timeZone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    era: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const bc = parts.find((p) => p.type === 'era')?.value.startsWith('B') ?? false;
  return { year: bc ? 1 - get('year') : get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

/** Date.UTC without its two-digit-year rule (it reads year 5 as 1905). */
function utcDate(year: number, month: number, day: number, hour: number, minute: number, second: number): Date {
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, 0);
  return at;
}

export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt\s](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * The instant to the whole second, and the decimal fraction of its second as written; a
 * date-time without an offset is wall-clock time in `timeZone`.
 */
function readIsoInstant(text: string, timeZone: string): { seconds: Date; fraction: string } | null {
  const m = ISO_DATE_TIME.exec(text.trim());
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 60) return null;
  // A leap second (23:59:60) reads as the last instant before the next minute.
  const fraction = second === 60 ? '999999' : (m[7] ?? '').slice(1);
  const at = new Date(0);
  const zone = m[8];
  if (zone === undefined && m[4] !== undefined)
    return { seconds: new Date(localToUtc(year, month, day, hour, minute, timeZone).getTime() + Math.min(second, 59) * 1000), fraction };
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, Math.min(second, 59), 0);
  if (zone && zone.toUpperCase() !== 'Z') {
    const zh = Number(zone.slice(1, 3));
    const zm = zone.length > 3 ? Number(zone.slice(-2)) : 0;
    if (zh > 23 || zm > 59) return null;
    at.setTime(at.getTime() - (zone[0] === '-' ? -1 : 1) * (zh * 60 + zm) * 60_000);
  }
  return { seconds: at, fraction };
}

/**
 * Reads an ISO 8601 / RFC 3339 date or date-time (what the spec's `format: date-time` and
 * `format: date` admit, and the shorter forms the service has always read): calendar-checked,
 * offsets of any size the RFC allows (Postgres itself only takes ±15:59), a leap second read as
 * the last millisecond before it. A date-time without an offset is wall-clock time in `timeZone`
 * (the person's where a person's time is meant, else UTC: never the zone of the machine the
 * server runs on). Null when the text is no such date.
 */
export function parseIsoInstant(text: string, timeZone = 'UTC'): Date | null {
  const read = readIsoInstant(text, timeZone);
  if (!read) return null;
  return new Date(read.seconds.getTime() + Math.floor(Number(`0.${read.fraction || '0'}`) * 1000));
}

function daysInMonth(year: number, month: number): number {
  return month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const EARLIEST = new Date('0001-01-01T00:00:00.000Z').getTime();
const LATEST = new Date('9999-12-31T23:59:59.000Z').getTime();

/**
 * An instant from the request as a UTC ISO string that Postgres and `Date` both read: the
 * offset applied, the fraction of a second kept to the microsecond (the precision of the
 * feed's cursors), and instants before year 1 or after 9999 (reachable through an offset)
 * clamped to those years' ends, which no stored timestamp lies beyond.
 */
export function canonicalInstant(text: string, timeZone = 'UTC'): string | null {
  const read = readIsoInstant(text, timeZone);
  if (!read) return null;
  const seconds = read.seconds.getTime();
  if (seconds < EARLIEST) return '0001-01-01T00:00:00.000000Z';
  if (seconds > LATEST) return '9999-12-31T23:59:59.999999Z';
  return `${read.seconds.toISOString().slice(0, 19)}.${read.fraction.slice(0, 6).padEnd(6, '0')}Z`;
}
