/**
 * Reminders: reminderAt written as an instant, in words or before the due date (and then
 * following the due date and each occurrence of a repeating task); refused where it cannot
 * apply; sent once as `task.reminder` however many senders run at once, not for completed
 * tasks, and dropped rather than sent a day late. Over REST and MCP.
 */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { sendDueReminders } from '../../src/domain/items/reminders.js';
import { localNow } from '../../src/domain/time.js';

describe('reminders', () => {
  const { server, ada } = useTestServer();

  const create = async (item: Record<string, unknown>) => (await ada.sdk.POST('/items', { body: { listId: 'tasks', items: [item as never] } })).data!;
  const reminderEvents = async (itemId: string) =>
    (await server.db('outbox').where({ topic: 'event', subject_id: itemId })).filter((r: { payload: { type: string } }) => r.payload.type === 'task.reminder');

  it('keeps a reminder before the due date when the due date moves, and on each occurrence', async () => {
    const made = await create({ title: 'Dentist', dueAt: '2026-12-03T09:30:00Z', reminderAt: '30 minutes before' });
    expect(made.failed).toEqual([]);
    const task = made.items[0]!;
    expect(task.reminderAt).toBe('2026-12-03T09:00:00.000Z');
    const moved = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id }], dueAt: '2026-12-04T14:00:00Z' } });
    expect(moved.data!.items[0]!.reminderAt).toBe('2026-12-04T13:30:00.000Z');
    // An instant given on a task with a due date keeps its distance to it too.
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id, reminderAt: '2026-12-03T14:00:00Z' }] } });
    const again = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id }], dueAt: '2026-12-05T14:00:00Z' } });
    expect(again.data!.items[0]!.reminderAt).toBe('2026-12-04T14:00:00.000Z');
    const cleared = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id }], dueAt: 'none' } });
    expect(cleared.data!.items[0]!.reminderAt).toBeNull();

    const weekly = (await create({ title: 'Bins out', dueAt: '2026-12-07T19:00:00Z', recurrence: 'every week', reminderAt: '1 hour before' })).items[0]!;
    const done = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: weekly.id }], taskStatus: 'completed' } });
    expect(done.data!.items[0]).toMatchObject({ dueAt: '2026-12-14T19:00:00.000Z', reminderAt: '2026-12-14T18:00:00.000Z' });
  });

  it('reads a reminder in words on a task without a due date, and refuses what cannot apply', async () => {
    const task = (await create({ title: 'Call the bank', reminderAt: 'tomorrow 8am' })).items[0]!;
    const tomorrow = localNow(new Date(Date.now() + 24 * 3600 * 1000), 'Europe/London').today;
    expect(localNow(new Date(task.reminderAt!), 'Europe/London')).toEqual({ today: tomorrow, localTime: '08:00' });
    const relative = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id, reminderAt: '10 minutes before' }] } });
    expect(relative.response.status).toBe(409);
    expect(relative.error!.error).toContain("reminderAt '10 minutes before' is relative to the due date, and the task has none");
    const onNotes = (await ada.sdk.POST('/items', { body: { listId: 'notes', items: [{ title: 'Idea', reminderAt: 'tomorrow 8am' }] } })).data!;
    expect(onNotes.failed[0]!.reason).toBe("reminderAt: list 'Notes' keeps no due date, so nothing there takes a reminder; use a list with task columns.");
    const cleared = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: task.id, reminderAt: '' }] } });
    expect(cleared.data!.items[0]!.reminderAt).toBeNull();
  });

  it('sends a reminder once, however many senders run at once, and never for a completed or archived task', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const due = (await create({ title: 'Pay the plumber', reminderAt: past })).items[0]!;
    const done = (await create({ title: 'Already paid', reminderAt: past, taskStatus: 'completed' })).items[0]!;
    const future = (await create({ title: 'Later', reminderAt: new Date(Date.now() + 3_600_000).toISOString() })).items[0]!;
    const archived = (await create({ title: 'Put away', reminderAt: past })).items[0]!;
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: archived.id }], archived: true } });
    const now = new Date();
    const sent = await Promise.all([sendDueReminders(server.db, now), sendDueReminders(server.db, now), sendDueReminders(server.db, now)]);
    expect(sent.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(await reminderEvents(due.id)).toHaveLength(1);
    expect((await reminderEvents(due.id))[0].payload.data).toMatchObject({
      itemId: due.id,
      title: 'Pay the plumber',
      reminderAt: new Date(past).toISOString(),
    });
    expect(await sendDueReminders(server.db, new Date())).toBe(0);
    expect(await reminderEvents(done.id)).toHaveLength(0);
    expect(await reminderEvents(future.id)).toHaveLength(0);
    expect(await reminderEvents(archived.id)).toHaveLength(0);
    // A new reminder time on the same task is sent again, once.
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: due.id, reminderAt: new Date(Date.now() - 1000).toISOString() }] } });
    await sendDueReminders(server.db, new Date());
    expect(await reminderEvents(due.id)).toHaveLength(2);
  });

  it('drops a reminder more than a day late instead of sending it', async () => {
    const stale = (await create({ title: 'Old reminder', reminderAt: new Date(Date.now() - 2 * 24 * 3600 * 1000).toISOString() })).items[0]!;
    await sendDueReminders(server.db, new Date());
    expect(await reminderEvents(stale.id)).toHaveLength(0);
    expect((await server.db('items').where({ id: stale.id }).first()).reminded_at).not.toBeNull();
  });

  it('shows the reminders of the next 24 hours in get_context, soonest first', async () => {
    const inTwo = new Date(Date.now() + 2 * 3600 * 1000).toISOString();
    const inOne = new Date(Date.now() + 3600 * 1000).toISOString();
    const later = (await create({ title: 'Water the tomatoes', reminderAt: inTwo })).items[0]!;
    const sooner = (await create({ title: 'Move the car', reminderAt: inOne })).items[0]!;
    await create({ title: 'Next week', reminderAt: new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString() });
    const coming = (await ada.sdk.GET('/context', {})).data!.tasks.remindersComing.filter((t) =>
      ['Water the tomatoes', 'Move the car', 'Next week'].includes(t.title!),
    );
    expect(coming.map((t) => [t.id, t.reminderAt])).toEqual([
      [sooner.id, inOne],
      [later.id, inTwo],
    ]);
  });

  it('takes reminderAt over MCP', async () => {
    const client = await server.mcp(ada);
    const made = await client.callTool({
      name: 'create_items',
      arguments: { listId: 'tasks', items: [{ title: 'Vet', dueAt: '2026-12-10T10:00:00Z', reminderAt: '1 day before' }] },
    });
    expect((made.structuredContent as { items: { reminderAt: string }[] }).items[0]!.reminderAt).toBe('2026-12-09T10:00:00.000Z');
    await client.close();
  });
});
