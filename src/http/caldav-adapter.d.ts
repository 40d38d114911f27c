/** The parts of caldav-adapter (a CommonJS koa middleware without types of its own) that src/http/caldav.ts uses. */
declare module 'caldav-adapter' {
  import type { Context, Middleware } from 'koa';

  interface Params {
    principalId: string;
    calendarId: string;
    eventId?: string;
    user: unknown;
    fullData?: boolean;
    syncToken?: string | null;
    updates?: Record<string, unknown>;
  }

  interface Options {
    caldavRoot?: string;
    calendarRoot?: string;
    principalRoot?: string;
    logEnabled?: boolean;
    disableWellKnown?: boolean;
    authRealm?: string;
    authenticate(ctx: Context, credentials: { username: string; password: string; principalId?: string }): Promise<unknown>;
    data: {
      getCalendar(ctx: Context, params: Params): Promise<unknown>;
      getCalendarsForPrincipal(ctx: Context, params: Params): Promise<unknown[]>;
      getCalendarId(ctx: Context, calendar: unknown): string;
      getEventsForCalendar(ctx: Context, params: Params): Promise<unknown[]>;
      getEventsByDate(ctx: Context, params: Params): Promise<unknown[]>;
      getEvent(ctx: Context, params: Params): Promise<unknown>;
      createEvent(ctx: Context, params: Params): Promise<unknown>;
      updateEvent(ctx: Context, params: Params): Promise<unknown>;
      deleteEvent(ctx: Context, params: Params): Promise<void>;
      createCalendar(ctx: Context, params: Params): Promise<unknown>;
      updateCalendar(ctx: Context, params: Params): Promise<unknown>;
      deleteCalendar(ctx: Context, params: Params): Promise<void>;
      buildICS(ctx: Context, events: unknown, calendar: unknown): Promise<string>;
      getETag(ctx: Context, object: unknown): string;
    };
  }

  export default function caldavAdapter(options: Options): Middleware;
}
