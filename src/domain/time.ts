/** Dates in the person's time zone. */

/** Today's date (YYYY-MM-DD) and local time (HH:MM) at `at` in `timeZone`. */
export function localNow(at: Date, timeZone: string): { today: string; localTime: string } {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return { today: `${get('year')}-${get('month')}-${get('day')}`, localTime: `${get('hour')}:${get('minute')}` };
}

/** The instant at which the local day containing `at` starts in `timeZone`. */
export function startOfLocalDay(at: Date, timeZone: string): Date {
  const { today } = localNow(at, timeZone);
  // Find the UTC instant whose local date-time is today 00:00, correcting for the zone offset.
  const guess = new Date(`${today}T00:00:00Z`);
  const offsetMs = zoneOffsetMs(guess, timeZone);
  return new Date(guess.getTime() - offsetMs);
}

/** The instant of a local wall-clock time in `timeZone` (month 1-12), right across DST changes. */
export function localToUtc(year: number, month: number, day: number, hour: number, minute: number, timeZone: string): Date {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const first = wall - zoneOffsetMs(new Date(wall), timeZone);
  return new Date(wall - zoneOffsetMs(new Date(first), timeZone));
}

/** Minutes east of UTC of `timeZone` at `at`. */
export function zoneOffsetMinutes(at: Date, timeZone: string): number {
  return Math.round(zoneOffsetMs(at, timeZone) / 60000);
}

function zoneOffsetMs(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - at.getTime();
}

export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
