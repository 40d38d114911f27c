/**
 * Repeating tasks and due dates in words, over REST, MCP and the SDK: a rule in words is said
 * back as rule and text; completing a repeating task five times moves it each time to its next
 * occurrence (reopened, counted, logged, in the changes feed); "" stops it; a list without a
 * due date refuses it; dueAt in words is read in the person's zone and answered as the instant
 * understood; the calendar feed writes a repeating task as an RRULE in the person's zone.
 */
import { describe, it, expect } from '@jest/globals';
import ICAL from 'ical.js';
import { useTestServer } from '../support/server.js';
import { localNow } from '../../src/domain/time.js';

describe('repeating tasks and due dates in words', () => {
  const { server, ada } = useTestServer();

  const getItem = async (id: string) => (await ada.sdk.GET('/items/{id}', { params: { path: { id } } })).data!;
  const complete = (id: string) => ada.sdk.PATCH('/items', { body: { items: [{ itemId: id }], taskStatus: 'completed' } });

  it('moves a repeating task to its next occurrence each time it is completed, five times', async () => {
    const made = await ada.sdk.POST('/items', {
      body: { listId: 'tasks', items: [{ title: 'Water plants', dueAt: '2026-12-07T08:00:00Z', recurrence: 'every 2 weeks on Monday at 8' }] },
    });
    expect(made.data!.failed).toEqual([]);
    const task = made.data!.items[0]!;
    expect(task.recurrence).toEqual({
      rule: 'INTERVAL=2;FREQ=WEEKLY;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0',
      text: 'every 2 weeks on Monday at 08:00',
      completions: 0,
      lastCompletedAt: null,
    });
    const before = (await ada.sdk.GET('/items', { params: { query: { listId: 'tasks', changedSince: new Date(Date.now() - 60_000).toISOString() } } })).data!;
    const dues: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const done = await complete(task.id);
      expect(done.response.status).toBe(200);
      const item = done.data!.items[0]!;
      expect(item).toMatchObject({ taskStatus: 'todo', completedAt: null, recurrence: { completions: i, lastCompletedAt: expect.any(String) } });
      dues.push(item.dueAt!);
    }
    // Two weeks apart, Mondays at 08:00 London time (GMT in winter).
    expect(dues).toEqual([
      '2026-12-21T08:00:00.000Z',
      '2027-01-04T08:00:00.000Z',
      '2027-01-18T08:00:00.000Z',
      '2027-02-01T08:00:00.000Z',
      '2027-02-15T08:00:00.000Z',
    ]);
    const read = await getItem(task.id);
    expect(read).toMatchObject({ taskStatus: 'todo', dueAt: '2027-02-15T08:00:00.000Z', recurrence: { completions: 5 } });
    // Each completion is in the activity log, and the changes feed shows the task moved.
    const log = await server.db('activity').where({ user_id: ada.userId, action: 'item.completed', item_id: task.id });
    expect(log).toHaveLength(5);
    expect(log[0].summary).toContain("Completed 'Water plants' (due 2026-12-07T08:00:00.000Z); it repeats, next due 2026-12-21T08:00:00.000Z");
    const feed = (await ada.sdk.GET('/items', { params: { query: { listId: 'tasks', changedSince: before.nextChangedSince! } } })).data!;
    expect(feed.items.find((i) => i.id === task.id)).toMatchObject({ dueAt: '2027-02-15T08:00:00.000Z' });
  });

  it('starts a repeating task without a due date at its first occurrence, and stops it with ""', async () => {
    const made = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Stand-up', recurrence: 'every weekday at 9' }] } })).data!
      .items[0]!;
    expect(made.hasDueTime).toBe(true);
    expect(localNow(new Date(made.dueAt!), 'Europe/London').localTime).toBe('09:00');
    expect(new Date(made.dueAt!).getTime()).toBeGreaterThan(Date.now());
    // The overview says how it repeats, for an agent planning the week.
    const context = (await ada.sdk.GET('/context', {})).data!;
    const listed = [...context.tasks.dueToday, ...context.tasks.upcoming].find((t) => t.id === made.id);
    expect(listed).toMatchObject({ repeats: 'every weekday at 09:00' });
    const stopped = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: made.id, recurrence: '' }] } });
    expect(stopped.data!.items[0]!.recurrence).toBeNull();
    const done = await complete(made.id);
    expect(done.data!.items[0]).toMatchObject({ taskStatus: 'completed', dueAt: made.dueAt });
  });

  it('refuses to clear the due date of a repeating task, saying to stop the repetition first, and clears both in one call', async () => {
    const task = (
      await ada.sdk.POST('/items', {
        body: { listId: 'tasks', items: [{ title: 'Water plants', dueAt: '2026-12-07T08:00:00Z', recurrence: 'every 2 weeks on Monday at 8' }] },
      })
    ).data!.items[0]!;
    const moved = (await complete(task.id)).data!.items[0]!;
    expect(moved.dueAt).toBe('2026-12-21T08:00:00.000Z');
    const sentence =
      `'Water plants' repeats (every 2 weeks on Monday at 08:00), so its due date cannot be cleared: stop the repetition first ` +
      '(recurrence ""), in the same call or before, or give it another due date.';
    for (const body of [{ items: [{ itemId: task.id }], dueAt: 'none' }, { items: [{ itemId: task.id, values: { dueDate: '' } }] }]) {
      const refused = await ada.sdk.PATCH('/items', { body });
      expect(refused.response.status).toBe(409);
      expect(refused.error).toMatchObject({ code: 'toolError', error: `items[0] (${task.id}): ${sentence} Nothing was written.` });
    }
    // Nothing moved back to the first occurrence.
    expect(await getItem(task.id)).toMatchObject({ dueAt: moved.dueAt, recurrence: { completions: 1 } });
    const both = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id, recurrence: '' }], dueAt: 'none' } });
    expect(both.data!.items[0]).toMatchObject({ dueAt: null, recurrence: null });
  });

  it('refuses a rule on a list without a due date, and one it cannot read, naming what to do', async () => {
    const onNotes = (await ada.sdk.POST('/items', { body: { listId: 'notes', items: [{ title: 'Idea', recurrence: 'every day' }] } })).data!;
    expect(onNotes.failed).toEqual([
      { index: 0, externalId: null, reason: "recurrence: list 'Notes' keeps no due date, so nothing there can repeat; use a list with task columns." },
    ]);
    const task = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Gym' }] } })).data!.items[0]!;
    const bad = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id, recurrence: 'when the moon is full' }] } });
    expect(bad.response.status).toBe(409);
    expect(bad.error).toMatchObject({ code: 'toolError', error: expect.stringContaining("recurrence 'when the moon is full' is not a rule listkeeper reads") });
  });

  it('takes back every rule it answers, and refuses one that never comes due in a moment, saying why', async () => {
    const words = ['every 2 weeks on Monday at 8', 'every weekday at 9', 'monthly on the last Friday', 'every other week', 'daily at 5:30pm'];
    const made = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: words.map((recurrence) => ({ title: recurrence, recurrence })) } })).data!;
    expect(made.failed).toEqual([]);
    const rules = made.items.map((i) => i.recurrence!.rule);
    expect(rules).toContain('INTERVAL=2;FREQ=WEEKLY;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0');
    const again = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: rules.map((recurrence) => ({ title: 'again', recurrence })) } })).data!;
    expect(again.failed).toEqual([]);
    expect(again.items.map((i) => i.recurrence!.rule)).toEqual(rules);
    const updated = await ada.sdk.PATCH('/items', { body: { items: made.items.map((i, n) => ({ itemId: i.id, recurrence: rules[(n + 1) % rules.length] })) } });
    expect(updated.response.status).toBe(200);

    const started = Date.now();
    const never = 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31';
    const refused = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'never', recurrence: never }] } })).data!;
    expect(refused.items).toEqual([]);
    expect(refused.failed[0]!.reason).toMatch(
      /^recurrence 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=31' has no occurrence in the next 10 years .* so the task would never come due/,
    );
    const bad = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: made.items[0]!.id, recurrence: 'FREQ=HOURLY;BYYEARDAY=366;BYMONTH=2' }] } });
    expect(bad.response.status).toBe(409);
    expect(bad.error).toMatchObject({ code: 'toolError', error: expect.stringContaining('so the task would never come due') });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reads dueAt in words in the person’s zone and answers the instant understood', async () => {
    const made = (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Call the bank', dueAt: 'tomorrow 5pm' }] } })).data!.items[0]!;
    const tomorrow = localNow(new Date(Date.now() + 24 * 3600 * 1000), 'Europe/London').today;
    expect(made.hasDueTime).toBe(true);
    expect(localNow(new Date(made.dueAt!), 'Europe/London')).toEqual({ today: tomorrow, localTime: '17:00' });
    const moved = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: made.id }], dueAt: 'next friday' } });
    expect(moved.response.status).toBe(200);
    const due = moved.data!.items[0]!;
    expect(due.hasDueTime).toBe(false);
    expect(new Date(`${localNow(new Date(due.dueAt!), 'Europe/London').today}T12:00:00Z`).getUTCDay()).toBe(5);
    const unreadable = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: made.id }], dueAt: 'when pigs fly' } });
    expect(unreadable.error).toMatchObject({ code: 'toolError', field: 'dueAt' });
  });

  it('takes the same over MCP, and answers the rule in the tool result', async () => {
    const client = await server.mcp(ada);
    const created = await client.callTool({
      name: 'create_items',
      arguments: { listId: 'tasks', items: [{ title: 'Pay rent', recurrence: 'monthly on the last Friday' }] },
    });
    const item = (created.structuredContent as { items: { id: string; recurrence: unknown; hasDueTime: boolean }[] }).items[0]!;
    expect(item).toMatchObject({ hasDueTime: false, recurrence: { rule: 'FREQ=MONTHLY;BYDAY=-1FR', text: 'every month on the last Friday', completions: 0 } });
    const done = await client.callTool({ name: 'update_items', arguments: { items: [{ itemId: item.id }], taskStatus: 'completed' } });
    expect((done.structuredContent as { items: { recurrence: { completions: number }; taskStatus: string }[] }).items[0]).toMatchObject({
      taskStatus: 'todo',
      recurrence: { completions: 1 },
    });
    await client.close();
  });

  it('writes a repeating task into the calendar feed as an RRULE in the person’s zone', async () => {
    await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Daily review', dueAt: '2026-10-23T08:00:00Z', recurrence: 'every day' }] } });
    const url = (await ada.sdk.POST('/calendar-feed', {})).data!.url;
    const calendar = new ICAL.Component(ICAL.parse(await (await fetch(url)).text()));
    for (const tz of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz);
    const event = new ICAL.Event(calendar.getAllSubcomponents('vevent').find((e) => e.getFirstPropertyValue('summary') === 'Daily review')!);
    expect(event.isRecurring()).toBe(true);
    expect(event.component.getFirstProperty('dtstart')!.getParameter('tzid')).toBe('Europe/London');
    const it = event.iterator();
    const starts = Array.from({ length: 4 }, () => it.next()!.toJSDate().toISOString());
    // 09:00 London each day: 08:00Z in summer time, 09:00Z once the clocks go back on 25 Oct.
    expect(starts).toEqual(['2026-10-23T08:00:00.000Z', '2026-10-24T08:00:00.000Z', '2026-10-25T09:00:00.000Z', '2026-10-26T09:00:00.000Z']);
  });
});
