/**
 * Recurrence rules: words and RRULE text read into a rule and said back; occurrences on the
 * person's wall clock across daylight-saving changes in two time zones (Europe/London falls
 * back on 25 Oct 2026, America/New_York on 1 Nov 2026 and springs forward on 8 Mar 2026).
 */
import { describe, it, expect } from '@jest/globals';
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
});
