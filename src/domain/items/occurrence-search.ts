/**
 * Bounded occurrence search for repeating rules. rrule scans a rule period by period until
 * year 9999 when its parts never meet (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31 scans every day of
 * eight thousand years: its UNTIL is only looked at once a period yields a date), and never
 * returns when an interval cannot reach its BYHOUR, BYMINUTE or BYSECOND
 * (FREQ=HOURLY;INTERVAL=24;BYHOUR=5 from 09:00); it has no iteration count of its own. So
 * every search here is bounded by steps, not by time, and answers the same on any machine:
 *   - it looks no further than a horizon: HORIZON_YEARS from where it starts, and at most
 *     MAX_STEPS of rrule's periods (FREQ × INTERVAL), fewer when BYSETPOS picks from many
 *     times a period; rrule reads INTERVAL twice per period, which is where the steps are counted;
 *   - a rule with a fixed period starts counting at the last period before `from` (its
 *     occurrences are the same, and an overdue task does not spend its steps on the past).
 * Two checks answer the usual never-meeting rules before any search: days that no year has
 * (the rule's day parts asked of a yearly rule over 28 years, which hold every kind of year),
 * and a time of day its interval never reaches (rrule's inner loop for that is not a period).
 */
import * as rrule from 'rrule';

// rrule is CommonJS: Node's ESM loader offers its exports as the default export only.
const { RRule } = (rrule as unknown as { default?: typeof rrule }).default ?? rrule;

export const HORIZON_YEARS = 10;
/** rrule periods one search steps through at most (bench/README.md: what a step costs). */
export const MAX_STEPS = 2000;

/**
 * Steps that the searches of one event-loop turn share beyond their first FREE_STEPS each: a
 * call that sends a hundred rules each costing MAX_STEPS holds the loop for one TURN_STEPS'
 * worth, and the rules past it are refused as too many to search at once. A rule that meets
 * soon (every rule an import of thousands of weekly tasks carries) takes none of the share.
 */
export const TURN_STEPS = 5000;
const FREE_STEPS = 16;
let turnSteps = TURN_STEPS;
let turnReset = false;

/** An occurrence, or why there is none: the rule ended (UNTIL), none within HORIZON_YEARS, within MAX_STEPS, or the turn's steps ran out. */
export type NoOccurrence = 'ended' | 'horizon' | 'steps' | 'busy';
export type Found = { at: Date } | { none: NoOccurrence };

const PERIOD_MS: Partial<Record<number, number>> = {
  [RRule.WEEKLY]: 7 * 86_400_000,
  [RRule.DAILY]: 86_400_000,
  [RRule.HOURLY]: 3_600_000,
  [RRule.MINUTELY]: 60_000,
  [RRule.SECONDLY]: 1000,
};
const YEAR_MS = 365.25 * 86_400_000;
const OUT_OF_STEPS = Symbol('out of steps');

/** The horizon of a search that starts at `from`. */
export function horizonAfter(from: Date): Date {
  const h = new Date(from);
  h.setUTCFullYear(h.getUTCFullYear() + HORIZON_YEARS);
  return h;
}

/**
 * The first occurrence of `rule` (RRULE text, floating times) counted from `dtstart`, after
 * `from` (or at it, when `inclusive`), within its horizon.
 */
export function occurrenceAfter(rule: string, dtstart: Date, from: Date, inclusive: boolean): Found {
  if (!reachesItsTime(rule, dtstart)) return { none: 'horizon' };
  const days = dayParts(rule);
  if (days) {
    if (!dayVerdicts.has(days)) {
      if (dayVerdicts.size > 1000) dayVerdicts.clear();
      const any = stepped(`FREQ=YEARLY;${days}`, new Date(Date.UTC(9972, 0, 1)), new Date(Date.UTC(9972, 0, 1)), true, Date.UTC(10000, 0, 1), 29);
      dayVerdicts.set(days, any !== null);
    }
    if (!dayVerdicts.get(days)) return { none: 'horizon' };
  }
  const horizon = horizonAfter(from).getTime();
  const own = stepLimit(RRule.parseString(rule));
  const limit = Math.min(own, turnSteps + FREE_STEPS);
  const next = stepped(rule, dtstart, from, inclusive, horizon, limit);
  if (next instanceof Date) return { at: next };
  if (next === OUT_OF_STEPS && limit < own) return { none: 'busy' };
  if (next === OUT_OF_STEPS && own === MAX_STEPS) return { none: 'steps' };
  const until = /(?:^|;)UNTIL=([0-9TZ]+)/i.exec(rule);
  return { none: until && untilTime(until[1]!) < horizon ? 'ended' : 'horizon' };
}

/** Periods a search of this rule steps through: MAX_STEPS, HORIZON_YEARS' worth if fewer, divided among BYSETPOS's times. */
function stepLimit(o: Partial<rrule.Options>): number {
  const interval = o.interval ?? 1;
  const period = PERIOD_MS[o.freq!] ?? (o.freq === RRule.MONTHLY ? YEAR_MS / 12 : YEAR_MS);
  const inHorizon = Math.ceil((HORIZON_YEARS * YEAR_MS) / (period * interval)) + 1;
  const count = (v: unknown) => (Array.isArray(v) ? v.length : 1);
  const times = o.bysetpos !== undefined && o.bysetpos !== null && o.freq! <= RRule.DAILY ? count(o.byhour) * count(o.byminute) * count(o.bysecond) : 1;
  return Math.min(inHorizon, Math.max(1, Math.floor(MAX_STEPS / times)));
}

/** rrule's first occurrence within `horizon` and `limit` periods (the rule's step limit), or null, or OUT_OF_STEPS. */
function stepped(rule: string, dtstart: Date, from: Date, inclusive: boolean, horizon: number, limit?: number): Date | null | typeof OUT_OF_STEPS {
  const o = RRule.parseString(rule);
  const period = PERIOD_MS[o.freq!] !== undefined ? PERIOD_MS[o.freq!]! * (o.interval ?? 1) : 0;
  const skipped = period && from > dtstart ? Math.floor((from.getTime() - dtstart.getTime()) / period) : 0;
  o.dtstart = new Date(dtstart.getTime() + skipped * period);
  o.until = o.until && o.until.getTime() < horizon ? o.until : new Date(horizon);
  const r = new RRule(o, true);
  const interval = r.options.interval;
  // rrule reads INTERVAL when it starts and twice per period.
  let reads = 2 * (limit ?? stepLimit(o)) + 1;
  Object.defineProperty(r.options, 'interval', {
    get() {
      if (--reads < 0) throw OUT_OF_STEPS;
      return interval;
    },
  });
  const reads0 = reads;
  try {
    return r.after(from, inclusive);
  } catch (err) {
    if (err === OUT_OF_STEPS) return OUT_OF_STEPS;
    throw err;
  } finally {
    spend(Math.ceil((reads0 - Math.max(reads, 0)) / 2) - FREE_STEPS);
  }
}

/** Takes `steps` from this turn's share; the share is whole again once the event loop turns. */
function spend(steps: number): void {
  if (steps <= 0) return;
  turnSteps = Math.max(0, turnSteps - steps);
  if (turnReset) return;
  turnReset = true;
  setImmediate(() => {
    turnSteps = TURN_STEPS;
    turnReset = false;
  });
}

/** Whether day parts meet in some year (each set of day parts is asked once per process). */
const dayVerdicts = new Map<string, boolean>();
/**
 * The parts that choose days, for a yearly rule: each of them only narrows the days a rule
 * takes, and a weekday's position or BYSETPOS narrows them further, so they are left out (the
 * yearly rule takes every day the rule could). Null when nothing but BYMONTH chooses days.
 */
function dayParts(rule: string): string | null {
  const parts = rule.split(';').filter((p) => /^(BYMONTH|BYMONTHDAY|BYYEARDAY|BYWEEKNO|BYDAY|WKST)=/i.test(p));
  if (!parts.some((p) => /^(BYMONTHDAY|BYYEARDAY|BYWEEKNO)=/i.test(p))) return null;
  return parts.map((p) => (/^BYDAY=/i.test(p) ? p.replace(/[+-]?\d+(?=[A-Z]{2})/gi, '') : p)).join(';');
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const listed = (rule: string, part: string, all: number): number[] => {
  const m = new RegExp(`(?:^|;)${part}=([^;]*)`, 'i').exec(rule);
  return m ? m[1]!.split(',').map(Number) : Array.from({ length: all }, (_, i) => i);
};

/**
 * Whether an hourly, minutely or secondly rule's steps from `dtstart` ever land on its
 * BYHOUR, BYMINUTE and BYSECOND (rrule steps on forever when they cannot): a step of
 * `interval` units keeps the start's place modulo gcd(interval, units in a day).
 */
function reachesItsTime(rule: string, dtstart: Date): boolean {
  const freq = /(?:^|;)FREQ=(HOURLY|MINUTELY|SECONDLY)/i.exec(rule)?.[1]?.toUpperCase();
  if (!freq) return true;
  const interval = Number(/(?:^|;)INTERVAL=(\d+)/i.exec(rule)?.[1] ?? 1);
  const unit = freq === 'HOURLY' ? 3600 : freq === 'MINUTELY' ? 60 : 1;
  const step = gcd(interval * unit, 86400);
  const start = dtstart.getUTCHours() * 3600 + dtstart.getUTCMinutes() * 60 + dtstart.getUTCSeconds();
  const hours = listed(rule, 'BYHOUR', 24);
  const minutes = unit <= 60 ? listed(rule, 'BYMINUTE', 60) : [dtstart.getUTCMinutes()];
  const seconds = unit === 1 ? listed(rule, 'BYSECOND', 60) : [dtstart.getUTCSeconds()];
  for (const h of hours) for (const m of minutes) for (const s of seconds) if ((((h * 3600 + m * 60 + s - start) % step) + step) % step === 0) return true;
  return false;
}

/** UNTIL's RFC 5545 date or date-time as epoch milliseconds. */
function untilTime(value: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2}))?/.exec(value);
  if (!m) return Number.POSITIVE_INFINITY;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 23), Number(m[5] ?? 59), Number(m[6] ?? 59));
}
