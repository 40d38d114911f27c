/**
 * Bounded occurrence search for repeating rules. rrule scans a rule period by period until
 * year 9999 when its parts never meet (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31 scans every day of
 * eight thousand years, UNTIL does not stop it), and never returns when an interval cannot
 * reach its BYHOUR, BYMINUTE or BYSECOND (FREQ=HOURLY;INTERVAL=24;BYHOUR=5 from 09:00); it has
 * no iteration count of its own. So every search here:
 *   - looks no further than a horizon (HORIZON_YEARS from where it starts);
 *   - runs in a V8 context of its own, whose run node:vm interrupts after SEARCH_MS;
 *   - shares a budget with the other searches of the same turn of the event loop: once
 *     searches that found nothing have spent TURN_MS in one turn, the rest of that turn's
 *     searches answer 'budget' without running (a batch of a hundred hostile rules holds the
 *     loop no longer than a few of them).
 * Two checks answer the usual never-meeting rules before any search, in well under a
 * millisecond: days that no year has (the rule's day parts asked of a yearly rule over 28
 * years, which hold every kind of year), and a time of day its interval never reaches. A rule
 * that has an occurrence soon answers in microseconds, so the budget only ever stops rules
 * whose parts almost never meet.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import vm from 'node:vm';

export const HORIZON_YEARS = 10;
const SEARCH_MS = 30;
const TURN_MS = 60;
const TURN_WINDOW_MS = 500;

/** An occurrence, or why there is none: the rule ended (UNTIL), none within the horizon, or out of time. */
export type NoOccurrence = 'ended' | 'horizon' | 'budget';
export type Found = { at: Date } | { none: NoOccurrence };

const context = vm.createContext({});
// rrule's UMD bundle defines `rrule` on the context's global object.
new vm.Script(readFileSync(createRequire(import.meta.url).resolve('rrule'), 'utf8'), { filename: 'rrule.js' }).runInContext(context);
// Dates cross into the context as numbers: rrule checks `instanceof Date` against its own realm.
const search = new vm.Script(
  `(() => {
    const o = rrule.RRule.parseString(args.rule);
    o.dtstart = new Date(args.dtstart);
    o.until = o.until && o.until.getTime() < args.horizon ? o.until : new Date(args.horizon);
    const next = new rrule.RRule(o).after(new Date(args.from), args.inclusive);
    return next ? next.getTime() : null;
  })()`,
  { filename: 'occurrence-search.js' },
);

// The first run of each of rrule's paths compiles it, which alone can take longer than a
// search's time: every frequency and part is run once here, when the module loads.
const WARM_PARTS = [
  '',
  ';INTERVAL=2;BYHOUR=10,16;BYMINUTE=30;BYSECOND=0',
  ';BYMONTH=2;BYMONTHDAY=29,-1',
  ';BYDAY=MO,FR;BYSETPOS=1,-1',
  ';BYDAY=-1FR,2MO',
  ';BYYEARDAY=100,-1;WKST=SU;UNTIL=20300101T000000Z',
  ';BYWEEKNO=20,-1',
];
for (const freq of ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY', 'MINUTELY', 'SECONDLY'])
  for (const parts of WARM_PARTS) {
    context.args = { rule: `FREQ=${freq}${parts}`, dtstart: Date.UTC(2026, 0, 1), from: Date.UTC(2026, 0, 1), inclusive: true, horizon: Date.UTC(2028, 0, 1) };
    // A warm-up that ran out of time leaves that path to compile on its first real search.
    try {
      search.runInContext(context, { timeout: 1000 });
      // The check of day parts, over the years before rrule's last.
      context.args = { ...(context.args as object), dtstart: Date.UTC(9972, 0, 1), from: Date.UTC(9972, 0, 1), horizon: Date.UTC(10000, 0, 1) };
      if (freq === 'YEARLY') search.runInContext(context, { timeout: 1000 });
    } catch {}
  }

let spent = 0;
let resetting = false;
let windowStart = 0;

/** The horizon of a search that starts at `from`. */
export function horizonAfter(from: Date): Date {
  const h = new Date(from);
  h.setUTCFullYear(h.getUTCFullYear() + HORIZON_YEARS);
  return h;
}

/**
 * The first occurrence of `rule` (RRULE text, floating times) counted from `dtstart`, after
 * `from` (or at it, when `inclusive`), within the horizon of `from`.
 */
export function occurrenceAfter(rule: string, dtstart: Date, from: Date, inclusive: boolean): Found {
  // The budget is the turn's; a turn is also taken to end after TURN_WINDOW_MS, for callers
  // that chain promises without giving the loop a turn.
  if (!resetting || performance.now() - windowStart > TURN_WINDOW_MS) {
    resetting = true;
    spent = 0;
    windowStart = performance.now();
    setImmediate(() => {
      resetting = false;
    });
  }
  if (!reachesItsTime(rule, dtstart)) return { none: 'horizon' };
  const days = dayParts(rule);
  if (days && dayVerdicts.get(days) !== true) {
    if (dayVerdicts.get(days) === false) return { none: 'horizon' };
    const any = run({
      rule: `FREQ=YEARLY;${days}`,
      dtstart: Date.UTC(9972, 0, 1),
      from: Date.UTC(9972, 0, 1),
      inclusive: true,
      horizon: Date.UTC(10000, 0, 1),
    });
    if (any === 'budget') return { none: 'budget' };
    if (dayVerdicts.size > 1000) dayVerdicts.clear();
    dayVerdicts.set(days, any !== null);
    if (any === null) return { none: 'horizon' };
  }
  const horizon = horizonAfter(from).getTime();
  const next = run({ rule, dtstart: dtstart.getTime(), from: from.getTime(), inclusive, horizon });
  if (next === 'budget') return { none: 'budget' };
  if (next !== null) return { at: new Date(next) };
  const until = /(?:^|;)UNTIL=([0-9TZ]+)/i.exec(rule);
  return { none: until && untilTime(until[1]!) < horizon ? 'ended' : 'horizon' };
}

/**
 * One search in the context, within what is left of the turn's budget. The time of a search
 * that found nothing counts against the budget (one that found an occurrence does not: that is
 * every sane rule); one that ran out of time is tried once more while budget is left (a busy
 * machine can hold a short search past its time).
 */
function run(args: { rule: string; dtstart: number; from: number; inclusive: boolean; horizon: number }): number | null | 'budget' {
  context.args = args;
  while (spent < TURN_MS) {
    const started = performance.now();
    try {
      const next = search.runInContext(context, { timeout: Math.max(1, Math.min(SEARCH_MS, Math.ceil(TURN_MS - spent))) }) as number | null;
      if (next === null) spent += performance.now() - started;
      return next;
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
      spent += performance.now() - started;
    }
  }
  return 'budget';
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
