/**
 * GET /calendar/<token>.ics: the person's tasks as an iCalendar (RFC 5545) feed, written with
 * ical-generator. The secret token is the permission (src/domain/transfer/calendar-feed.ts); an unknown
 * or revoked one answers 404. One event per task: all day on its local date when the due date
 * has no time, else half an hour from the due time; free time (transparent), titled by the task
 * (a completed one marked ✓), linking to its page.
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import ical, { ICalEventTransparency } from 'ical-generator';
import { getVtimezoneComponent } from '@touch4it/ical-timezones';
import type { Config } from '../core/config.js';
import { readFeed } from '../domain/transfer/calendar-feed.js';
import { itemUrls } from '../domain/items/urls.js';
import { localParts } from '../domain/time.js';

export const CALENDAR_ROOT = '/calendar/';
const TIMED_EVENT_MINUTES = 30;

export interface CalendarRouteDeps {
  db: Knex;
  config: Pick<Config, 'baseUrl' | 'webOrigin' | 'appScheme'>;
  now(): Date;
}

/** `at` as a local date-time in `timeZone`, YYYY-MM-DDTHH:MM:SS without a zone. */
function wallClock(at: Date, timeZone: string): string {
  const p = localParts(at, timeZone);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${p.year}-${two(p.month)}-${two(p.day)}T${two(p.hour)}:${two(p.minute)}:${two(p.second)}`;
}

export function calendarFeed(deps: CalendarRouteDeps) {
  return async (ctx: Context): Promise<void> => {
    const file = ctx.path.slice(CALENDAR_ROOT.length);
    const feed = file.endsWith('.ics') ? await readFeed(deps.db, file.slice(0, -'.ics'.length), deps.now()) : undefined;
    if (!feed) {
      ctx.status = 404;
      ctx.body = { error: 'No calendar feed at this address: it was never made, or it was revoked or replaced.', code: 'notFound' };
      return;
    }
    const host = new URL(deps.config.baseUrl).host;
    // Times in UTC (calendars show them in their own zone); all-day dates are the person's local dates.
    // A repeating timed task is written in the person's zone (with its VTIMEZONE), so its
    // occurrences keep their local time across daylight-saving changes.
    const calendar = ical({
      name: 'listkeeper tasks',
      prodId: { company: 'listkeeper', product: 'tasks' },
      ttl: 15 * 60,
      timezone: { name: null, generator: getVtimezoneComponent },
    });
    for (const task of feed.tasks) {
      // An all-day event is written as its date: UTC midnight of it, with no zone.
      const start = 'at' in task.due ? task.due.at : new Date(`${task.due.date}T00:00:00Z`);
      calendar.createEvent({
        id: `${task.id}@${host}`,
        summary: `${task.completed ? '✓ ' : ''}${task.title || 'Untitled task'}`,
        description: `${task.listName}${task.completed ? ' (done)' : ''}`,
        url: itemUrls(deps.config, task.id).webUrl,
        start,
        ...('at' in task.due ? { end: new Date(start.getTime() + TIMED_EVENT_MINUTES * 60_000) } : { allDay: true }),
        // ical-generator writes a Date's UTC fields as the zone's wall clock: a repeating timed
        // task gets its local date-time in the person's zone as text instead.
        ...(task.recurrence
          ? {
              repeating: task.recurrence,
              ...('at' in task.due
                ? {
                    timezone: feed.timeZone,
                    start: wallClock(task.due.at, feed.timeZone),
                    end: wallClock(new Date(start.getTime() + TIMED_EVENT_MINUTES * 60_000), feed.timeZone),
                  }
                : {}),
            }
          : {}),
        transparency: ICalEventTransparency.TRANSPARENT,
        stamp: task.updatedAt,
        lastModified: task.updatedAt,
      });
    }
    ctx.set('Content-Type', 'text/calendar; charset=utf-8');
    ctx.set('Cache-Control', 'private, max-age=300');
    ctx.body = calendar.toString();
  };
}
