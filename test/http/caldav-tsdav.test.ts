/**
 * CalDAV driven by tsdav (a CalDAV client library from npm): discovery from
 * /.well-known/caldav with the API key or an app password; a task made on the phone with every
 * field listkeeper maps reaches REST, and what it does not map survives a REST edit; a task
 * made through REST reaches the phone with every field; sync-collection returns only what
 * changed, and what left the list as gone; a stale ETag gets 412; a delete on either side
 * reaches the other.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { createDAVClient, type DAVCalendar, type DAVCalendarObject } from 'tsdav';
import { useTestServer } from '../support/server.js';
import { phoneSubtask, phoneTask, readTask, withLine } from '../support/caldav.js';
import { createAppPassword } from '../../src/domain/accounts/app-passwords.js';

type Client = Awaited<ReturnType<typeof createDAVClient>>;

describe('CalDAV with tsdav', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });
  let client: Client;
  let tasks: DAVCalendar;

  const connect = (password: string) =>
    createDAVClient({
      serverUrl: `${server.baseUrl}/.well-known/caldav`,
      credentials: { username: ada.email, password },
      authMethod: 'Basic',
      defaultAccountType: 'caldav',
    });

  beforeAll(async () => {
    client = await connect(ada.key);
    tasks = (await client.fetchCalendars()).find((c) => c.displayName === '✅ Tasks')!;
  });

  async function object(filename: string): Promise<DAVCalendarObject> {
    const [found] = await client.fetchCalendarObjects({ calendar: tasks, objectUrls: [new URL(filename, tasks.url).href] });
    return found!;
  }

  async function item(id: string) {
    const got = await ada.sdk.GET('/items/{id}', { params: { path: { id } } });
    return got.data!;
  }

  async function idOf(title: string): Promise<string> {
    const list = await ada.sdk.GET('/items', { params: { query: { listId: 'tasks', limit: 100 } } });
    return list.data!.items.find((i) => i.title === title)!.id;
  }

  it('finds the task lists from /.well-known/caldav, with the API key or an app password, and refuses a wrong one', async () => {
    const names = (await client.fetchCalendars()).map((c) => [c.displayName, c.components]);
    expect(names).toEqual([
      ['✅ Tasks', ['VTODO']],
      ['🗂️ Life Admin', ['VTODO']],
    ]);
    const { password } = await createAppPassword(server.db, ada.userId, 'Phone');
    expect((await (await connect(password)).fetchCalendars()).length).toBe(2);
    await expect(connect('aaaa-bbbb-cccc-dddd')).rejects.toThrow();
    const anonymous = await fetch(`${server.baseUrl}/dav/`, { method: 'PROPFIND', headers: { depth: '0' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('keeps each person to their own lists: another’s principal or list is refused', async () => {
    const bea = account('Bea');
    const basic = (who: typeof bea) => `Basic ${Buffer.from(`${who.email}:${who.key}`).toString('base64')}`;
    const propfind = (route: string, who: typeof bea) =>
      fetch(`${server.baseUrl}${route}`, { method: 'PROPFIND', headers: { depth: '1', authorization: basic(who) } });
    const adaTasks = new URL(tasks.url).pathname;
    expect((await propfind(adaTasks, ada)).status).toBe(207);
    // Bea's key on Ada's principal: refused as a wrong password is.
    expect((await propfind(adaTasks, bea)).status).toBe(401);
    // Bea's principal with Ada's list: no such list.
    const beaPath = adaTasks.replace(ada.userId, bea.userId);
    expect((await propfind(beaPath, bea)).status).toBe(404);
    const put = await fetch(`${server.baseUrl}${beaPath}sneaky.ics`, {
      method: 'PUT',
      headers: { authorization: basic(bea), 'content-type': 'text/calendar' },
      body: phoneTask('sneaky', 'Sneaky task'),
    });
    expect(put.status).toBe(404);
    for (const who of [ada, bea])
      expect((await who.sdk.GET('/items', { params: { query: { listId: 'tasks', limit: 100 } } })).data!.items.map((i) => i.title)).not.toContain(
        'Sneaky task',
      );
  });

  it('takes a task made on the phone with every mapped field, and keeps what it does not map through a REST edit', async () => {
    const parent = await client.createCalendarObject({ calendar: tasks, filename: 'plants.ics', iCalString: phoneTask('phone-plants') });
    expect(parent.status).toBe(201);
    expect((await client.createCalendarObject({ calendar: tasks, filename: 'food.ics', iCalString: phoneSubtask('phone-food', 'phone-plants') })).status).toBe(
      201,
    );
    const plants = await item(await idOf('Water the plants'));
    expect(plants).toMatchObject({
      body: 'Both balconies\nand the hall',
      taskStatus: 'inProgress',
      // 18:00 in Berlin in December is 17:00 UTC; the reminder one hour before.
      dueAt: '2026-12-10T17:00:00.000Z',
      hasDueTime: true,
      reminderAt: '2026-12-10T16:00:00.000Z',
      labels: ['home', 'garden'],
    });
    expect(plants.recurrence?.rule).toBe('FREQ=WEEKLY;BYDAY=TH');
    const food = await item(await idOf('Buy plant food'));
    expect(food).toMatchObject({ parentId: plants.id, hasDueTime: false });
    expect(food.dueAt?.slice(0, 10)).toBe('2026-12-08');

    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: plants.id, title: 'Water all the plants', labels: ['home'] }], dueAt: '2026-12-17T17:00:00Z' } });
    const back = readTask((await object('plants.ics')).data);
    expect(back).toMatchObject({
      summary: 'Water all the plants',
      description: 'Both balconies\nand the hall',
      status: 'IN-PROCESS',
      due: '2026-12-17T17:00:00.000Z',
      rrule: 'FREQ=WEEKLY;BYDAY=TH',
      categories: ['home'],
      priority: 1,
      sortOrder: '42',
    });
    // The first alarm is the reminder (still one hour before, and still the phone's alarm); the second passes through.
    expect(back.alarms).toEqual([
      { trigger: '-PT1H', related: 'END', uid: 'alarm-1', action: 'DISPLAY' },
      { trigger: '2026-12-10T12:00:00.000Z', related: null, uid: null, action: 'AUDIO' },
    ]);
    expect(readTask((await object('food.ics')).data)).toMatchObject({ relatedTo: 'phone-plants', due: '2026-12-08' });
  });

  it('shows a task made through REST with every field, and takes the phone’s edit of it', async () => {
    const made = await ada.sdk.POST('/items', {
      body: {
        listId: 'tasks',
        items: [
          {
            title: 'Renew passport',
            body: 'Photos **first**',
            dueAt: '2026-12-01T09:00:00Z',
            recurrence: 'FREQ=YEARLY',
            reminderAt: '2 days before',
            labels: ['admin', 'travel'],
            taskStatus: 'inProgress',
          },
        ],
      },
    });
    const passport = made.data!.items[0]!;
    const child = (
      await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Book photo booth', dueAt: '2026-11-30', parentId: passport.id }] } })
    ).data!.items[0]!;
    const shown = readTask((await object(`${passport.id}.ics`)).data);
    expect(shown).toMatchObject({
      uid: passport.id,
      summary: 'Renew passport',
      description: 'Photos **first**',
      status: 'IN-PROCESS',
      // A repeating timed task is written in Ada's zone, so the phone keeps its local time.
      due: '2026-12-01T09:00:00.000Z',
      dueTzid: 'Europe/London',
      rrule: 'FREQ=YEARLY',
      categories: ['admin', 'travel'],
      alarms: [{ trigger: '-P2D', related: 'END', uid: null, action: 'DISPLAY' }],
    });
    expect(readTask((await object(`${child.id}.ics`)).data)).toMatchObject({ relatedTo: passport.id, due: '2026-11-30' });

    const current = await object(`${child.id}.ics`);
    const edited = withLine(withLine(current.data, 'SUMMARY', 'SUMMARY:Book the photo booth'), 'STATUS', 'STATUS:COMPLETED');
    const put = await client.updateCalendarObject({ calendarObject: { ...current, data: edited } });
    expect(put.status).toBe(204);
    expect(await item(child.id)).toMatchObject({ title: 'Book the photo booth', taskStatus: 'completed', parentId: passport.id });
  });

  it('syncs only what changed since its token, and reports what left the list as gone', async () => {
    // Sync D does not change after the token: it is not sent again.
    const [a, b, c, d] = (
      await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Sync A' }, { title: 'Sync B' }, { title: 'Sync C' }, { title: 'Sync D' }] } })
    ).data!.items;
    const lists = await ada.sdk.GET('/lists', {});
    const lifeAdmin = lists.data!.lists.find((l) => l.name === 'Life Admin')!;
    const token = (await client.fetchCalendars()).find((cal) => cal.url === tasks.url)!.syncToken!;
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: a!.id, title: 'Sync A, renamed' }] } });
    await ada.sdk.DELETE('/items', { body: { itemIds: [b!.id] } });
    await ada.sdk.POST('/items/move', { body: { itemIds: [c!.id], listId: lifeAdmin.id } });
    const changes = await client.syncCollection({ url: tasks.url, props: { 'd:getetag': {} }, syncLevel: 1, syncToken: token });
    // A changed member comes with its properties; a removed one with the status 404 alone (RFC 6578 §3.5).
    const byName = new Map(changes.map((r) => [decodeURIComponent(r.href!.split('/').pop()!), r.status === 404 ? 'gone' : r.props?.getetag ? 'changed' : '?']));
    expect(byName).toEqual(
      new Map([
        [`${a!.id}.ics`, 'changed'],
        [`${b!.id}.ics`, 'gone'],
        [`${c!.id}.ics`, 'gone'],
      ]),
    );
    expect((await client.fetchCalendarObjects({ calendar: tasks })).map((o) => o.url.split('/').pop())).toContain(`${d!.id}.ics`);
    const other = (await client.fetchCalendars()).find((cal) => cal.displayName === '🗂️ Life Admin')!;
    expect((await client.fetchCalendarObjects({ calendar: other })).map((o) => readTask(o.data).summary)).toContain('Sync C');
  });

  it('answers 412 to a write or a delete with a stale ETag', async () => {
    const [task] = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Contested' }] } })).data!.items;
    const seen = await object(`${task!.id}.ics`);
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task!.id, title: 'Changed on the web' }] } });
    const stale = await client.updateCalendarObject({ calendarObject: { ...seen, data: withLine(seen.data, 'SUMMARY', 'SUMMARY:Changed on the phone') } });
    expect(stale.status).toBe(412);
    expect((await client.deleteCalendarObject({ calendarObject: seen })).status).toBe(412);
    expect((await item(task!.id)).title).toBe('Changed on the web');
    const fresh = await object(`${task!.id}.ics`);
    expect(fresh.etag).not.toBe(seen.etag);
    expect(
      (await client.updateCalendarObject({ calendarObject: { ...fresh, data: withLine(fresh.data, 'SUMMARY', 'SUMMARY:Changed on the phone') } })).status,
    ).toBe(204);
    expect((await item(task!.id)).title).toBe('Changed on the phone');
  });

  it('deletes on either side', async () => {
    const [fromWeb, fromPhone] = (
      await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Delete on web' }, { title: 'Delete on phone' }] } })
    ).data!.items;
    const phoneCopy = await object(`${fromPhone!.id}.ics`);
    expect((await client.deleteCalendarObject({ calendarObject: phoneCopy })).status).toBe(204);
    expect((await ada.sdk.GET('/items/{id}', { params: { path: { id: fromPhone!.id } } })).response.status).toBe(404);
    const trash = await ada.sdk.GET('/trash', {});
    expect(trash.data!.items.map((i) => i.id)).toContain(fromPhone!.id);

    await ada.sdk.DELETE('/items', { body: { itemIds: [fromWeb!.id] } });
    const names = (await client.fetchCalendarObjects({ calendar: tasks })).map((o) => o.url.split('/').pop());
    expect(names).not.toContain(`${fromWeb!.id}.ics`);
    expect(names).not.toContain(`${fromPhone!.id}.ics`);
  });
});
