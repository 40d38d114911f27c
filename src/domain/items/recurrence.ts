/**
 * Recurring tasks: a rule (RFC 5545 RRULE, read and written by the rrule library) from RRULE
 * text or everyday words, said back in words; and the next occurrence of a task's due date.
 *
 * Occurrences are computed on the person's wall clock: the due date's local date and time in
 * their zone stand in as a "floating" time (UTC fields, no zone) for rrule, and each
 * occurrence found is turned back into an instant in that zone. So "every day at 9" stays at
 * 09:00 local on both sides of a daylight-saving change.
 *
 * Completing a recurring task moves it to the first occurrence after the later of its due
 * date and now (occurrences missed while it was overdue are skipped), as Todoist's "every"
 * does; the task reopens and the completion is counted (src/domain/items/update.ts).
 * @see openapi/openapi.yaml components/schemas/Recurrence
 */
import * as rrule from 'rrule';
import { ValueError } from '../lists/values.js';
import { localParts, localToUtc } from '../time.js';
import { HORIZON_YEARS, MAX_STEPS, occurrenceAfter, TURN_STEPS, type Found, type NoOccurrence } from './occurrence-search.js';

// rrule is CommonJS: Node's ESM loader offers its exports as the default export only.
const { RRule } = (rrule as unknown as { default?: typeof rrule }).default ?? rrule;

export interface RecurrenceRule {
  /** RRULE text without the `RRULE:` prefix, e.g. `FREQ=WEEKLY;BYDAY=MO`. */
  rule: string;
  /** The rule in words, as understood. */
  text: string;
}

export interface Due {
  at: Date;
  hasTime: boolean;
}

/** Everyday words rrule's parser does not take, as words it does. */
const ALIASES: [RegExp, string][] = [
  [/^daily\b/, 'every day'],
  [/^weekly\b/, 'every week'],
  [/^monthly\b/, 'every month'],
  [/^(yearly|annually)\b/, 'every year'],
  [/^every other\b/, 'every 2'],
  [/^each\b/, 'every'],
];
const TIME = /\s+at\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*$/i;

const RECURRENCE_MAX = 200;

/**
 * A rule from RRULE text (its parts in any order, as RFC 5545 allows) or words; throws
 * ValueError with a sentence naming what was not understood, or saying that the rule has no
 * occurrence from `now` within the search horizon.
 */
export function parseRecurrence(input: string, now: Date = new Date()): RecurrenceRule {
  const text = input.trim();
  // The API's RecurrenceInput maxLength, for imports and CalDAV too: rrule's word reader is slow on long text.
  if (text.length > RECURRENCE_MAX) throw new ValueError(`recurrence is ${text.length} characters long; a rule is at most ${RECURRENCE_MAX}.`);
  let options: Partial<rrule.Options>;
  if (/^(RRULE:)?[A-Z]+=/i.test(text)) {
    try {
      options = RRule.parseString(text.replace(/^RRULE:/i, '').toUpperCase());
      // An unknown FREQ parses to nothing usable: making the rule's text finds out.
      RRule.optionsToString(new RRule(options).origOptions);
    } catch (err) {
      throw new ValueError(`recurrence '${text}' is not an RRULE listkeeper can read (${(err as Error).message}); write it like FREQ=WEEKLY;BYDAY=MO.`);
    }
    if (options.freq === undefined || options.freq === null) throw new ValueError(`recurrence '${text}' is not an RRULE listkeeper can read: it has no FREQ.`);
  } else {
    let words = text.toLowerCase().replace(/\s+/g, ' ');
    for (const [pattern, replacement] of ALIASES) words = words.replace(pattern, replacement);
    const time = TIME.exec(words);
    if (time) words = words.slice(0, time.index);
    try {
      options = RRule.parseText(words) ?? {};
    } catch {
      options = {};
    }
    if (options.freq === undefined || options.freq === null)
      throw new ValueError(
        `recurrence '${text}' is not a rule listkeeper reads; write it like 'every weekday at 9', 'every 2 weeks on Monday', 'every month on the last Friday', or as an RRULE such as FREQ=WEEKLY;BYDAY=MO.`,
      );
    if (time) {
      let hour = Number(time[1]);
      const minute = Number(time[2] ?? 0);
      const meridiem = time[3]?.toLowerCase();
      if (meridiem === 'pm' && hour < 12) hour += 12;
      if (meridiem === 'am' && hour === 12) hour = 0;
      if (hour > 23 || minute > 59) throw new ValueError(`recurrence '${text}': ${time[0].trim()} is not a time of day.`);
      options.byhour = [hour];
      options.byminute = [minute];
    }
  }
  delete options.dtstart;
  delete options.tzid;
  if (options.count !== undefined && options.count !== null)
    throw new ValueError(`recurrence '${text}': COUNT is not supported (a task repeats until you stop it); leave it out, or use UNTIL.`);
  const rule = new RRule({
    ...options,
    byminute: options.byhour && !options.byminute ? [0] : options.byminute,
    bysecond: options.byhour ? [0] : options.bysecond,
  });
  const ruleText = RRule.optionsToString(rule.origOptions).replace(/^RRULE:/, '');
  const today = floating(now, 'UTC');
  today.setUTCHours(0, 0, 0, 0);
  const first = occurrenceAfter(ruleText, today, today, true);
  if ('none' in first) throw new ValueError(`recurrence '${text}' ${NO_OCCURRENCE[first.none]}`);
  return { rule: ruleText, text: describe(rule) };
}

const NO_OCCURRENCE: Record<NoOccurrence, string> = {
  ended: 'has ended: its UNTIL comes before its next occurrence, so the task would never come due; give a later UNTIL or leave it out.',
  horizon: `has no occurrence in the next ${HORIZON_YEARS} years (its parts never meet, like BYMONTH=2;BYMONTHDAY=31), so the task would never come due; check its BY parts.`,
  busy: `could not be searched: this call sends more repeating rules that almost never meet than listkeeper searches at once (${TURN_STEPS} periods in all); send them in smaller batches, or check their BY parts.`,
  steps: `has no occurrence in its next ${MAX_STEPS} periods (FREQ times INTERVAL, as far as listkeeper looks; its parts never or almost never meet, like BYMONTH=2;BYMONTHDAY=31), so the task would never come due; check its BY parts.`,
};

/** The occurrence found, or null when there is none to move to. */
function found(result: Found): Date | null {
  return 'at' in result ? result.at : null;
}

/** The rule in words: rrule's sentence, with the time of day it leaves out. */
export function describe(rule: rrule.RRule | string): string {
  const r = typeof rule === 'string' ? RRule.fromString(rule) : rule;
  const { byhour, byminute, bysecond: _seconds, ...rest } = r.origOptions;
  const hours = ([] as number[]).concat(byhour ?? []);
  const minutes = ([] as number[]).concat(byminute ?? [0]);
  const at = hours.length === 1 ? ` at ${String(hours[0]).padStart(2, '0')}:${String(minutes[0] ?? 0).padStart(2, '0')}` : '';
  return `${new RRule(hours.length === 1 ? rest : r.origOptions).toText()}${at}`;
}

/**
 * Why a repeating task's due date is not cleared: it is always due at an occurrence, and
 * clearing it would only put it back at the rule's first one, undoing what completions moved.
 */
export function clearedDueRefusal(title: string, rule: string): string {
  return `'${title}' repeats (${describe(rule)}), so its due date cannot be cleared: stop the repetition first (recurrence ""), in the same call or before, or give it another due date.`;
}

/** Whether the rule fixes the time of day (BYHOUR). */
export function hasTimeOfDay(rule: string): boolean {
  return /(^|;)BYHOUR=/.test(rule);
}

/** A wall-clock time in `timeZone` as a floating date (its fields in UTC), and back. */
function floating(at: Date, timeZone: string): Date {
  const p = localParts(at, timeZone);
  return new Date(Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, 0));
}
function fromFloating(f: Date, timeZone: string): Date {
  return localToUtc(f.getUTCFullYear(), f.getUTCMonth() + 1, f.getUTCDate(), f.getUTCHours(), f.getUTCMinutes(), timeZone);
}

/**
 * The first occurrence of `rule` strictly after `after` (and after `due`, when there is one),
 * counted from `due` (or from `after` for a task with no due date yet); null when the rule
 * has ended (UNTIL) or has none within the search horizon (occurrence-search.ts).
 */
export function nextOccurrence(rule: string, due: Due | null, after: Date, timeZone: string): Due | null {
  const timed = hasTimeOfDay(rule) || (due?.hasTime ?? false);
  const start = floating(due?.at ?? after, timeZone);
  if (!timed) start.setUTCHours(0, 0, 0, 0);
  const from = floating(due && due.at > after ? due.at : after, timeZone);
  if (!timed) from.setUTCHours(23, 59, 59, 0);
  const next = found(occurrenceAfter(rule, start, from, false));
  if (!next) return null;
  return { at: fromFloating(next, timeZone), hasTime: timed };
}

/** The due date a task takes when it gets a rule: its own if it has one, else the first occurrence from now. */
export function firstDue(rule: string, due: Due | null, now: Date, timeZone: string): Due | null {
  if (due) return due;
  const timed = hasTimeOfDay(rule);
  const start = floating(now, timeZone);
  if (!timed) start.setUTCHours(0, 0, 0, 0);
  const first = found(occurrenceAfter(rule, start, timed ? floating(now, timeZone) : start, !timed));
  return first ? { at: fromFloating(first, timeZone), hasTime: timed } : null;
}
