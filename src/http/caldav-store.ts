/**
 * What caldav-adapter asks of the service, answered from the person's task lists: the
 * collections, their tasks as calendar objects, the changes since a sync token, and the
 * writes (src/http/caldav-writes.ts), each an item operation. An instance is the adapter's
 * `data` option; its methods are called on it.
 * @see docs/caldav.md
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import type { OperationContext, Principal } from '../core/context.js';
import { invoke } from '../operations/dispatch.js';
import { itemUrls } from '../domain/items/urls.js';
import type { ListRow } from '../domain/lists/lists.js';
import {
  collectionChanges,
  collectionObjects,
  findObject,
  syncMoment,
  taskCollection,
  taskCollections,
  type CalendarObject,
} from '../domain/caldav/objects.js';
import { DavRefusal, writeTask } from './caldav-writes.js';

export const DAV_ROOT = '/dav';
const SYNC_PREFIX = '/sync/';

export interface CaldavDeps {
  db: Knex;
  config: Config;
  now(): Date;
  operationContext(ctx: Context, principal: Principal): OperationContext;
}

/** The signed-in person, as the adapter keeps it in `ctx.state.user`. */
export interface DavUser {
  principalId: string;
  principalName: string;
  email: string;
  principal: Principal;
  timeZone: string;
  /** The lists the key's or app password's grant reaches; absent, every list. */
  reach?: readonly string[];
}

interface DavCalendar {
  calendarId: string;
  name: string;
  description: string;
  synctoken: string;
  readonly: boolean;
  has_vevent: boolean;
  has_vtodo: boolean;
}

interface DavEvent {
  eventId: string;
  href: string;
  componentType: 'VTODO';
  ics: string;
  etag: string;
  deleted_at?: Date;
}

interface Params {
  calendarId: string;
  eventId?: string;
  syncToken?: string | null;
}

const userOf = (ctx: Context) => ctx.state.user as DavUser;
const hrefOf = (list: ListRow, name: string) => `${DAV_ROOT}/cal/${list.owner_id}/${list.id}/${encodeURIComponent(name)}`;
const asEvent = (list: ListRow, object: CalendarObject): DavEvent => ({
  eventId: object.name,
  href: hrefOf(list, object.name),
  componentType: 'VTODO',
  ics: object.ics,
  etag: object.etag,
});

export class DavStore {
  constructor(private readonly deps: CaldavDeps) {}

  private urlOf = (id: string) => itemUrls(this.deps.config, id).webUrl;

  private async calendarOf(list: ListRow): Promise<DavCalendar> {
    return {
      calendarId: list.id,
      name: list.icon ? `${list.icon} ${list.name}` : list.name,
      description: list.instructions ?? '',
      synctoken: `${this.deps.config.baseUrl}${DAV_ROOT}${SYNC_PREFIX}${await syncMoment(this.deps.db)}`,
      readonly: false,
      has_vevent: false,
      has_vtodo: true,
    };
  }

  private collection(ctx: Context, calendarId: string): Promise<ListRow | undefined> {
    return taskCollection(this.deps.db, userOf(ctx).principalId, calendarId, userOf(ctx).reach);
  }

  private async objectAt(ctx: Context, { calendarId, eventId }: Params): Promise<{ list?: ListRow; current?: CalendarObject }> {
    const list = await this.collection(ctx, calendarId);
    const current = list && eventId ? await findObject(this.deps.db, list, eventId, userOf(ctx).timeZone, this.urlOf) : undefined;
    return { ...(list ? { list } : {}), ...(current ? { current } : {}) };
  }

  /** The sync moment a client's token names; a token older than the trash keeps deletions is refused (the client syncs afresh). */
  private momentOf(token: string): string {
    const at = token.lastIndexOf(SYNC_PREFIX);
    const moment = at >= 0 ? token.slice(at + SYNC_PREFIX.length) : '';
    const oldest = (this.deps.now().getTime() - this.deps.config.trashRetentionDays * 86_400_000) * 1000;
    if (!/^\d{1,20}$/.test(moment) || Number(moment) < oldest)
      throw new DavRefusal(403, 'valid-sync-token', 'This sync token is unknown or too old: sync afresh.');
    return moment;
  }

  async getCalendarsForPrincipal(ctx: Context): Promise<DavCalendar[]> {
    return Promise.all((await taskCollections(this.deps.db, userOf(ctx).principalId, userOf(ctx).reach)).map((list) => this.calendarOf(list)));
  }

  async getCalendar(ctx: Context, { calendarId }: Params): Promise<DavCalendar | null> {
    const list = await this.collection(ctx, calendarId);
    return list ? this.calendarOf(list) : null;
  }

  getCalendarId(_ctx: Context, calendar: unknown): string {
    return (calendar as DavCalendar).calendarId;
  }

  /** Every task of the collection, or with a sync token only those changed since, and those gone as removed members. */
  async getEventsForCalendar(ctx: Context, { calendarId, syncToken }: Params): Promise<DavEvent[]> {
    const list = await this.collection(ctx, calendarId);
    if (!list) return [];
    const { timeZone } = userOf(ctx);
    if (!syncToken) return (await collectionObjects(this.deps.db, list, timeZone, this.urlOf)).map((o) => asEvent(list, o));
    const { changed, gone } = await collectionChanges(this.deps.db, list, this.momentOf(syncToken), timeZone, this.urlOf);
    const removed = gone.map(
      (name): DavEvent => ({ eventId: name, href: hrefOf(list, name), componentType: 'VTODO', ics: '', etag: '', deleted_at: this.deps.now() }),
    );
    return [...changed.map((o) => asEvent(list, o)), ...removed];
  }

  /** A time-range query gets every task: a due date is not a span, and the client filters. */
  async getEventsByDate(ctx: Context, params: Params): Promise<DavEvent[]> {
    return this.getEventsForCalendar(ctx, { calendarId: params.calendarId });
  }

  async getEvent(ctx: Context, params: Params): Promise<DavEvent | null> {
    const { list, current } = await this.objectAt(ctx, params);
    return list && current ? asEvent(list, current) : null;
  }

  async createEvent(ctx: Context, params: Params): Promise<DavEvent> {
    return this.write(ctx, params, null);
  }

  async updateEvent(ctx: Context, params: Params): Promise<DavEvent> {
    return this.write(ctx, params, (await this.objectAt(ctx, params)).current ?? null);
  }

  /** DELETE: the task goes to the trash with delete_items; a stale If-Match is refused (caldav-adapter checks it on PUT only). */
  async deleteEvent(ctx: Context, params: Params): Promise<void> {
    const { current } = await this.objectAt(ctx, params);
    if (!current) throw new DavRefusal(404, 'resource-must-exist', 'There is no such task in this list.');
    const ifMatch = ctx.get('if-match');
    if (ifMatch && ifMatch !== '*' && ifMatch !== current.etag) throw new DavRefusal(412, 'if-match', 'The task changed since you read it: read it again.');
    await invoke(this.deps.operationContext(ctx, userOf(ctx).principal), 'delete_items', { params: {}, body: { itemIds: [current.itemId] } });
  }

  async createCalendar(): Promise<never> {
    throw new DavRefusal(403, 'calendar-collection-location-ok', 'Make lists in listkeeper; each list that keeps status and due dates shows up here.');
  }

  /** PROPPATCH: colors and order a client sets are its own; the list stays as it is. */
  async updateCalendar(ctx: Context, params: Params): Promise<DavCalendar | null> {
    return this.getCalendar(ctx, params);
  }

  async deleteCalendar(): Promise<never> {
    throw new DavRefusal(403, 'need-privileges', 'Delete lists in listkeeper, not from a CalDAV client.');
  }

  async buildICS(_ctx: Context, events: unknown): Promise<string> {
    return Array.isArray(events) ? (events as DavEvent[]).map((e) => e.ics).join('') : (events as DavEvent).ics;
  }

  getETag(_ctx: Context, object: unknown): string {
    return 'etag' in (object as object) ? (object as DavEvent).etag : `"${(object as DavCalendar).synctoken.split('/').pop()}"`;
  }

  private async write(ctx: Context, params: Params, current: CalendarObject | null): Promise<DavEvent> {
    const list = await this.collection(ctx, params.calendarId);
    if (!list) throw new DavRefusal(404, 'resource-must-exist', 'There is no such list: tasks go into a list that keeps status and due dates.');
    const user = userOf(ctx);
    const written = await writeTask({
      db: this.deps.db,
      context: this.deps.operationContext(ctx, user.principal),
      list,
      name: params.eventId!,
      current,
      text: String((ctx.request as { body?: unknown }).body ?? ''),
      timeZone: user.timeZone,
      urlOf: this.urlOf,
    });
    return asEvent(list, written);
  }
}
