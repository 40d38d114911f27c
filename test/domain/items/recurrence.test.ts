/**
 * Recurrence rules: words and RRULE text read into a rule and said back; occurrences on the
 * person's wall clock across daylight-saving changes in two time zones (Europe/London falls
 * back on 25 Oct 2026, America/New_York on 1 Nov 2026 and springs forward on 8 Mar 2026).
 */
import { describe, it, expect } from '@jest/globals';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_STEPS, TURN_STEPS } from '../../../src/domain/items/occurrence-search.js';
import { firstDue, nextOccurrence, parseRecurrence } from '../../../src/domain/items/recurrence.js';
import { localNow } from '../../../src/domain/time.js';
import { ValueError } from '../../../src/domain/lists/values.js';

const local = (at: Date, zone: string) => {
  const l = localNow(at, zone);
  return `${l.today} ${l.localTime}`;
};

/** The next `n` due dates of a task completed each time right when it is due. */
function occurrences(rule: string, from: { at: Date; hasTime: boolean }, zone: string, n: number): Date[] {
  const out: Date[] = [];
  let due = from;
  for (let i = 0; i < n; i++) {
    due = nextOccurrence(rule, due, due.at, zone)!;
    out.push(due.at);
  }
  return out;
}

describe('recurrence rules', () => {
  it.each([
    ['every weekday at 9', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0', 'every weekday at 09:00'],
    ['every 2 weeks on Monday', 'INTERVAL=2;FREQ=WEEKLY;BYDAY=MO', 'every 2 weeks on Monday'],
    ['monthly on the last Friday', 'FREQ=MONTHLY;BYDAY=-1FR', 'every month on the last Friday'],
    ['daily at 5:30pm', 'FREQ=DAILY;BYHOUR=17;BYMINUTE=30;BYSECOND=0', 'every day at 17:30'],
    ['every other week', 'INTERVAL=2;FREQ=WEEKLY', 'every 2 weeks'],
    ['FREQ=WEEKLY;BYDAY=MO', 'FREQ=WEEKLY;BYDAY=MO', 'every week on Monday'],
    ['RRULE:freq=yearly', 'FREQ=YEARLY', 'every year'],
  ])('reads %j as %s and says it back as %j', (input, rule, text) => {
    expect(parseRecurrence(input)).toEqual({ rule, text });
  });

  it('refuses what it cannot read, saying how to write it', () => {
    expect(() => parseRecurrence('whenever I feel like it')).toThrow(ValueError);
    expect(() => parseRecurrence('whenever I feel like it')).toThrow(/write it like 'every weekday at 9'/);
    expect(() => parseRecurrence('FREQ=SOMETIMES')).toThrow(/not an RRULE listkeeper can read/);
    expect(() => parseRecurrence('FREQ=DAILY;COUNT=3')).toThrow(/COUNT is not supported/);
  });

  it('keeps 09:00 local across the autumn change in London and New York', () => {
    const daily = parseRecurrence('every day at 9').rule;
    const london = occurrences(daily, { at: new Date('2026-10-23T08:00:00Z'), hasTime: true }, 'Europe/London', 4);
    expect(london.map((d) => d.toISOString())).toEqual([
      '2026-10-24T08:00:00.000Z',
      '2026-10-25T09:00:00.000Z',
      '2026-10-26T09:00:00.000Z',
      '2026-10-27T09:00:00.000Z',
    ]);
    expect(london.map((d) => local(d, 'Europe/London'))).toEqual(['2026-10-24 09:00', '2026-10-25 09:00', '2026-10-26 09:00', '2026-10-27 09:00']);
    const newYork = occurrences(daily, { at: new Date('2026-10-30T13:00:00Z'), hasTime: true }, 'America/New_York', 4);
    expect(newYork.map((d) => d.toISOString())).toEqual([
      '2026-10-31T13:00:00.000Z',
      '2026-11-01T14:00:00.000Z',
      '2026-11-02T14:00:00.000Z',
      '2026-11-03T14:00:00.000Z',
    ]);
  });

  it('keeps a task’s own time of day across the spring change, and a date-only task date-only', () => {
    const weekly = parseRecurrence('every week on Sunday').rule;
    // 07:30 New York on Sunday 1 Mar 2026 (EST), then 8 Mar (the change, EDT from 02:00).
    const timed = occurrences(weekly, { at: new Date('2026-03-01T12:30:00Z'), hasTime: true }, 'America/New_York', 2);
    expect(timed.map((d) => local(d, 'America/New_York'))).toEqual(['2026-03-08 07:30', '2026-03-15 07:30']);
    expect(timed[0]!.toISOString()).toBe('2026-03-08T11:30:00.000Z');
    const weekdays = parseRecurrence('every weekday').rule;
    const friday = { at: new Date('2026-10-23T00:00:00+01:00'), hasTime: false };
    const next = nextOccurrence(weekdays, friday, friday.at, 'Europe/London')!;
    expect(next.hasTime).toBe(false);
    // Monday 26 Oct starts at midnight GMT, after the change.
    expect(next.at.toISOString()).toBe('2026-10-26T00:00:00.000Z');
  });

  it('skips occurrences missed while a task was overdue, and starts a task with no due date at its first occurrence', () => {
    const daily = parseRecurrence('every day at 9').rule;
    const overdue = { at: new Date('2026-11-20T09:00:00Z'), hasTime: true };
    expect(nextOccurrence(daily, overdue, new Date('2026-11-25T12:00:00Z'), 'Europe/London')!.at.toISOString()).toBe('2026-11-26T09:00:00.000Z');
    // Completed before it is due: the occurrence after its due date.
    const early = { at: new Date('2026-11-28T09:00:00Z'), hasTime: true };
    expect(nextOccurrence(daily, early, new Date('2026-11-25T12:00:00Z'), 'Europe/London')!.at.toISOString()).toBe('2026-11-29T09:00:00.000Z');
    const lastFriday = parseRecurrence('every month on the last Friday').rule;
    expect(firstDue(lastFriday, null, new Date('2026-11-25T10:00:00Z'), 'America/New_York')).toEqual({ at: new Date('2026-11-27T05:00:00Z'), hasTime: false });
    expect(firstDue(daily, null, new Date('2026-11-25T10:00:00Z'), 'Europe/London')).toEqual({ at: new Date('2026-11-26T09:00:00Z'), hasTime: true });
  });

  it('reads its own rules back, whatever order their parts come in (RFC 5545)', () => {
    expect(parseRecurrence('INTERVAL=2;FREQ=WEEKLY;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0')).toEqual({
      rule: 'INTERVAL=2;FREQ=WEEKLY;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
      text: 'every 2 weeks on Monday at 08:00',
    });
    expect(parseRecurrence('BYDAY=FR;FREQ=MONTHLY;BYSETPOS=-1').rule).toBe('BYDAY=FR;FREQ=MONTHLY;BYSETPOS=-1');
    // Every rule the service answers, from words and from RRULE text, is read back as itself.
    const words = ['every', 'each', 'daily', 'weekly', 'monthly', 'yearly', 'every other'];
    const periods = ['day', 'week', 'month', 'year', '2 weeks', '3 days', 'weekday'];
    const tails = ['', ' on monday', ' on monday and friday', ' at 8', ' at 5:30pm', ' on the last friday'];
    const made = new Set<string>();
    for (const w of words)
      for (const p of periods)
        for (const t of tails) {
          for (const input of [`${w} ${p}${t}`, `${w}${t}`]) {
            try {
              made.add(parseRecurrence(input).rule);
            } catch (err) {
              if (!(err instanceof ValueError)) throw err;
            }
          }
        }
    expect(made.size).toBeGreaterThan(25);
    for (const rule of made) {
      expect(parseRecurrence(rule).rule).toBe(rule);
      expect(parseRecurrence(`RRULE:${rule}`).rule).toBe(rule);
      expect(parseRecurrence(rule.split(';').reverse().join(';')).text).toBe(parseRecurrence(rule).text);
    }
  });

  it.each([
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31',
    'FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30',
    'FREQ=MINUTELY;BYMONTH=4;BYMONTHDAY=31',
    'FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=31',
    'FREQ=YEARLY;BYYEARDAY=366;BYMONTH=2',
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31;UNTIL=20991231T000000Z',
    'FREQ=HOURLY;INTERVAL=24;BYHOUR=5;BYMINUTE=30',
  ])('refuses %s, which never comes due, in a bounded time and says why', async (rule) => {
    await nextTurn();
    const started = performance.now();
    expect(() => parseRecurrence(rule)).toThrow(/so the task would never come due; check its BY parts\./);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses a rule that ended, and answers no occurrence, at once, for a stored rule that never meets', async () => {
    await nextTurn();
    expect(() => parseRecurrence('FREQ=DAILY;UNTIL=20200101T000000Z')).toThrow(/has ended: its UNTIL comes before its next occurrence/);
    const due = { at: new Date('2026-11-20T09:00:00Z'), hasTime: true };
    for (const rule of ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31', 'FREQ=HOURLY;INTERVAL=24;BYHOUR=5;BYMINUTE=0;BYSECOND=0']) {
      await nextTurn();
      const started = performance.now();
      expect(nextOccurrence(rule, due, new Date('2026-11-25T12:00:00Z'), 'Europe/London')).toBeNull();
      expect(firstDue(rule, null, new Date('2026-11-25T12:00:00Z'), 'Europe/London')).toBeNull();
      expect(performance.now() - started).toBeLessThan(1000);
    }
    // A rare rule that does meet is found: 29 February falls on a Monday in 2044.
    await nextTurn();
    expect(firstDue('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', null, new Date('2030-03-01T12:00:00Z'), 'UTC')).toBeNull();
    expect(firstDue('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', null, new Date('2040-03-01T12:00:00Z'), 'UTC')!.at.toISOString()).toBe(
      '2044-02-29T00:00:00.000Z',
    );
  });

  it('bounds a search by rrule periods, not by time: a minutely rule looks MAX_STEPS periods ahead', async () => {
    // 29 February is a Monday in 2044: 2,921 days after 1 March 2036, 1,460 after 1 March 2040.
    // Each search in a turn of its own, so none runs on what another left of the turn's share.
    const rule = 'FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO';
    await nextTurn();
    expect(() => parseRecurrence(rule, new Date('2036-03-01T12:00:00Z'))).toThrow(
      `recurrence '${rule}' has no occurrence in its next ${MAX_STEPS} periods (FREQ times INTERVAL, as far as listkeeper looks;`,
    );
    await nextTurn();
    expect(firstDue(rule, null, new Date('2036-03-01T12:00:00Z'), 'UTC')).toBeNull();
    await nextTurn();
    expect(firstDue(rule, null, new Date('2040-03-01T12:00:00Z'), 'UTC')!.at.toISOString()).toBe('2044-02-29T00:00:00.000Z');
    await nextTurn();
    // A yearly rule steps a year a period, so the same days are within its ten years.
    expect(firstDue('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', null, new Date('2036-03-01T12:00:00Z'), 'UTC')!.at.toISOString()).toBe(
      '2044-02-29T00:00:00.000Z',
    );
    // An overdue task's past periods are not counted: years of hours since its due date.
    const due = { at: new Date('2020-06-01T09:00:00Z'), hasTime: true };
    expect(nextOccurrence('FREQ=HOURLY;BYMONTH=6', due, new Date('2026-12-01T12:00:00Z'), 'UTC')!.at.toISOString()).toBe('2027-06-01T00:00:00.000Z');
  });

  it("shares a turn's steps among its searches: past TURN_STEPS a rule is refused as too many at once, searched again next turn", async () => {
    await nextTurn();
    const hostile = 'FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO';
    const from = new Date('2036-03-01T12:00:00Z');
    const reason = (rule: string) => {
      try {
        parseRecurrence(rule, from);
        return 'meets';
      } catch (err) {
        return (err as Error).message.includes('could not be searched') ? 'busy' : 'none';
      }
    };
    // A rule that meets soon takes none of the share, however many there are.
    expect(Array.from({ length: 1000 }, () => reason('FREQ=WEEKLY;BYDAY=MO'))).toEqual(Array(1000).fill('meets'));
    const answers = Array.from({ length: Math.ceil(TURN_STEPS / MAX_STEPS) + 2 }, () => reason(hostile));
    expect(answers.filter((a) => a === 'none').length).toBeGreaterThanOrEqual(Math.floor(TURN_STEPS / MAX_STEPS) - 1);
    expect(answers.slice(-2)).toEqual(['busy', 'busy']);
    expect(reason('FREQ=WEEKLY;BYDAY=MO')).toBe('meets');
    await nextTurn();
    expect(reason(hostile)).toBe('none');
  });
});
