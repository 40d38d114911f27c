/**
 * GET /calendar/<token>.ics: the person's tasks as an iCalendar (RFC 5545) feed, written with
 * ical-generator. The secret token is the permission (src/domain/calendar-feed.ts); an unknown
 * or revoked one answers 404. One event per task: all day on its local date when the due date
 * has no time, else half an hour from the due time; free time (transparent), titled by the task
 * (a completed one marked ✓), linking to its page.
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import ical, { ICalEventTransparency } from 'ical-generator';
import type { Config } from '../core/config.js';
import { readFeed } from '../domain/calendar-feed.js';
import { itemUrls } from '../domain/links.js';

export const CALENDAR_ROOT = '/calendar/';
const TIMED_EVENT_MINUTES = 30;

export interface CalendarRouteDeps {
  db: Knex;
  config: Pick<Config, 'baseUrl' | 'webOrigin' | 'appScheme'>;
  now(): Date;
}

export function calendarFeed(deps: CalendarRouteDeps) {
  return async (ctx: Context): Promise<void> => {
    const file = ctx.path.slice(CALENDAR_ROOT.length);
    const tasks = file.endsWith('.ics') ? await readFeed(deps.db, file.slice(0, -'.ics'.length), deps.now()) : undefined;
    if (!tasks) {
      ctx.status = 404;
      ctx.body = { error: 'No calendar feed at this address: it was never made, or it was revoked or replaced.', code: 'notFound' };
      return;
    }
    const host = new URL(deps.config.baseUrl).host;
    // Times in UTC (calendars show them in their own zone); all-day dates are the person's local dates.
    const calendar = ical({ name: 'listkeeper tasks', prodId: { company: 'listkeeper', product: 'tasks' }, ttl: 15 * 60 });
    for (const task of tasks) {
      // An all-day event is written as its date: UTC midnight of it, with no zone.
      const start = 'at' in task.due ? task.due.at : new Date(`${task.due.date}T00:00:00Z`);
      calendar.createEvent({
        id: `${task.id}@${host}`,
        summary: `${task.completed ? '✓ ' : ''}${task.title || 'Untitled task'}`,
        description: `${task.listName}${task.completed ? ' (done)' : ''}`,
        url: itemUrls(deps.config, task.id).webUrl,
        start,
        ...('at' in task.due ? { end: new Date(start.getTime() + TIMED_EVENT_MINUTES * 60_000) } : { allDay: true }),
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
