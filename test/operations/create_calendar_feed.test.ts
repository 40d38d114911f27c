/**
 * The calendar feed: a secret address made over REST serves the person's tasks with due dates
 * as iCalendar, which ical.js (Mozilla's parser) reads: timed tasks at their instant, date-only
 * ones all day on the person's date, completed ones marked, nothing of other lists or people.
 * A revoked or replaced address answers 404.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import ICAL from 'ical.js';
import { useTestServer, type TestAccount } from '../support/server.js';

interface FeedEvent {
  uid: string;
  summary: string;
  start: string;
  allDay: boolean;
  url: string | null;
}

function parse(text: string): FeedEvent[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  expect(calendar.name).toBe('vcalendar');
  return calendar.getAllSubcomponents('vevent').map((component) => {
    const event = new ICAL.Event(component);
    return {
      uid: event.uid,
      summary: event.summary,
      start: event.startDate.isDate ? event.startDate.toString() : event.startDate.toJSDate().toISOString(),
      allDay: event.startDate.isDate,
      url: component.getFirstPropertyValue('url') as string | null,
    };
  });
}

describe('calendar feed', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });
  let bea: TestAccount;
  beforeAll(() => {
    bea = account('Bea');
  });

  async function create(who: TestAccount): Promise<string> {
    const made = await who.sdk.POST('/calendar-feed', {});
    expect(made.response.status).toBe(201);
    return made.data!.url;
  }

  it('serves the tasks with due dates, timed and all day, to whoever has the address', async () => {
    expect((await ada.sdk.GET('/calendar-feed', {})).data).toEqual({ active: false, createdAt: null, lastFetchedAt: null });
    const made = await ada.sdk.POST('/items', {
      body: {
        listId: 'tasks',
        items: [
          { title: 'Dentist', dueAt: '2026-12-03T09:30:00Z' },
          // A date alone: the start of that day in Ada's zone (Europe/London), all day in the feed.
          { title: 'Pay rent', dueAt: '2026-12-01' },
          { title: 'Someday, no date' },
          { title: 'Filed the taxes', dueAt: '2026-11-20T12:00:00Z', taskStatus: 'completed' },
        ],
      },
    });
    const [dentist, rent] = made.data!.items.map((i) => i.id);
    await ada.sdk.POST('/items', { body: { listId: 'notes', items: [{ title: 'A note is no task' }] } });
    await bea.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Bea only', dueAt: '2026-12-02T10:00:00Z' }] } });

    const url = await create(ada);
    expect(url).toMatch(new RegExp(`^${server.baseUrl}/calendar/cal_[A-Za-z0-9_-]{40}\\.ics$`));
    const answer = await fetch(url);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    const events = parse(await answer.text());
    expect(events.map((e) => e.summary)).toEqual(['✓ Filed the taxes', 'Pay rent', 'Dentist']);
    expect(events.find((e) => e.summary === 'Dentist')).toMatchObject({
      start: '2026-12-03T09:30:00.000Z',
      allDay: false,
      uid: expect.stringContaining(dentist!),
    });
    expect(events.find((e) => e.summary === 'Pay rent')).toMatchObject({
      start: '2026-12-01',
      allDay: true,
      url: expect.stringContaining(`/artifacts/${rent}`),
    });

    const state = (await ada.sdk.GET('/calendar-feed', {})).data!;
    expect(state).toMatchObject({ active: true, createdAt: expect.any(String), lastFetchedAt: expect.any(String) });
  });

  it('answers 404 once the address is revoked or replaced, and never serves another address', async () => {
    const first = await create(ada);
    expect((await fetch(first)).status).toBe(200);
    const second = await create(ada);
    expect((await fetch(first)).status).toBe(404);
    expect((await fetch(second)).status).toBe(200);
    expect((await ada.sdk.DELETE('/calendar-feed', {})).data).toEqual({ revoked: true });
    expect((await fetch(second)).status).toBe(404);
    expect((await ada.sdk.DELETE('/calendar-feed', {})).data).toEqual({ revoked: false });
    expect((await fetch(`${server.baseUrl}/calendar/cal_not-a-feed.ics`)).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/calendar/${second.split('/').pop()!.replace('.ics', '')}`)).status).toBe(404);

    const beas = parse(await (await fetch(await create(bea))).text());
    expect(beas.map((e) => e.summary)).toEqual(['Bea only']);
  });
});
