import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { get_context } from '../../src/operations/get_context.js';
import { create_list } from '../../src/operations/create_list.js';
import { create_items } from '../../src/operations/create_items.js';
import { createAutomation } from '../../src/domain/automations/automations.js';

describe('get_context', () => {
  const { server, ada } = useTestServer();

  it("shows the user with today's date and local time in their time zone", async () => {
    const ctx = { ...server.context(ada), services: { now: () => new Date('2026-07-01T23:30:00Z') } };
    const { user } = await get_context(ctx, {});
    expect(user).toMatchObject({ name: 'Ada', timezone: 'Europe/London', today: '2026-07-02', localTime: '00:30' });
  });

  it('lists every list with ids, roles and counts, and names Tasks and Notes by id', async () => {
    await create_list(server.context(ada), { name: 'Books', properties: [{ name: 'Author', type: 'text' }] });
    const result = await get_context(server.context(ada), {});
    expect(result.lists.map((l) => [l.name, l.role])).toEqual([
      ['Tasks', 'tasks'],
      ['Notes', 'notes'],
      ['Life Admin', 'tasks'],
      ['Books', 'other'],
    ]);
    expect(result.lists.find((l) => l.id === result.tasksListId)?.name).toBe('Tasks');
    expect(result.notesListId).toBe(result.lists[1]!.id);
    expect(result.unavailable).toEqual(['email', 'connected apps']);
    expect(result.links.web).toBe(`${server.baseUrl}/artifacts/{id}`);
    expect(result.activity[0]).toMatchObject({ action: 'list.created', viaConnection: true });
  });

  it('scopes the task sections to focusListId and refuses an unknown one with 404', async () => {
    const result = await get_context(server.context(ada), { focusListId: 'tasks' });
    expect(result.focusListId).toBe(result.tasksListId);
    const res = await fetch(`${server.baseUrl}/api/v1/context?focusListId=00000000-0000-4000-8000-000000000000`, {
      headers: { Authorization: `Bearer ${ada.key}` },
    });
    expect(res.status).toBe(404);
  });

  it('is the same through REST and MCP', async () => {
    const rest = await ada.sdk.GET('/context');
    const mcp = await (await server.mcp(ada)).callTool({ name: 'get_context', arguments: {} });
    const strip = (c: Record<string, unknown>) => ({ ...c, user: { ...(c.user as object), localTime: '' } });
    expect(strip(mcp.structuredContent as Record<string, unknown>)).toEqual(strip(rest.data as unknown as Record<string, unknown>));
  });
});

describe('get_context automations and size', () => {
  const { server, ada } = useTestServer();

  it('lists automations with their next and last run', async () => {
    const weekly = await createAutomation(
      server.db,
      ada.userId,
      { name: 'Weekly review', schedule: '0 9 * * 1', actions: [{ type: 'postDigest' }] },
      new Date('2026-11-22T10:00:00Z'),
    );
    await createAutomation(server.db, ada.userId, { name: 'Someday', status: 'draft', actions: [{ type: 'postDigest' }] }, new Date());
    const at = new Date('2026-11-20T09:00:00Z');
    await server.db('automation_runs').insert({
      automation_id: weekly.id,
      owner_id: ada.userId,
      trigger: 'schedule',
      scheduled_for: at,
      outcome: 'succeeded',
      created_at: at,
      started_at: at,
      finished_at: at,
    });
    const { automations } = await get_context(server.context(ada), {});
    expect(automations).toEqual([
      {
        id: weekly.id,
        name: 'Weekly review',
        status: 'active',
        nextRunAt: '2026-11-23T09:00:00.000Z',
        lastRun: { runId: expect.any(String), startedAt: at.toISOString(), finishedAt: at.toISOString(), outcome: 'succeeded', error: null },
      },
      { id: expect.any(String), name: 'Someday', status: 'draft', nextRunAt: null, lastRun: null },
    ]);
  });

  /**
   * The budget: get_context is the first call of every agent session, so it must leave a
   * model's context for the work: 8,000 tokens (characters / 4) is 4% of a 200k window.
   * Every section is capped (10 tasks per section, 5 notes, 20 activity lines, options
   * suppressed), so the size follows the number of lists, memory lines and automations, not
   * the number of items. Measured here: about 5,800 tokens, of which the five task sections
   * (50 tasks with long titles, ~60 tokens each) are more than half; the rest is headroom for
   * longer memory and more lists.
   */
  it('stays under 8,000 tokens (characters / 4) for a realistic workspace', async () => {
    const ctx = server.context(ada);
    const lists = [];
    for (const [name, props] of [
      [
        'Groceries',
        [
          { name: 'Aisle', type: 'select', options: ['Produce', 'Dairy', 'Bakery', 'Frozen', 'Pantry'] },
          { name: 'Qty', type: 'number' },
        ],
      ],
      [
        'Books',
        [
          { name: 'Author', type: 'text' },
          { name: 'Status', type: 'select', options: ['To read', 'Reading', 'Read', 'Abandoned'] },
          { name: 'Rating', type: 'number' },
          { name: 'Tags', type: 'multiSelect', options: ['fiction', 'history', 'science', 'biography'] },
        ],
      ],
      [
        'Films',
        [
          { name: 'Director', type: 'text' },
          { name: 'Year', type: 'number' },
          { name: 'Seen', type: 'checkbox' },
        ],
      ],
      [
        'Recipes',
        [
          { name: 'Cuisine', type: 'select', options: ['Italian', 'Thai', 'Mexican', 'Indian', 'Japanese', 'French'] },
          { name: 'Minutes', type: 'number' },
          { name: 'Source', type: 'url' },
        ],
      ],
      [
        'Contacts',
        [
          { name: 'Email', type: 'text' },
          { name: 'Phone', type: 'text' },
          { name: 'Birthday', type: 'date' },
          { name: 'Company', type: 'text' },
        ],
      ],
      [
        'Trips',
        [
          { name: 'Start', type: 'date' },
          { name: 'End', type: 'date' },
          { name: 'Budget', type: 'number' },
        ],
      ],
      [
        'Gifts',
        [
          { name: 'For', type: 'text' },
          { name: 'Price', type: 'number' },
          { name: 'Bought', type: 'checkbox' },
        ],
      ],
      ['Habits', [{ name: 'Frequency', type: 'select', options: ['Daily', 'Weekly', 'Monthly'] }]],
    ] as const)
      lists.push(await create_list(ctx, { name, properties: props as never }));
    for (const name of ['Work', 'Home renovation', 'Side project'])
      lists.push(await create_list(ctx, { name, template: 'tasks', instructions: 'One task per line. Due dates are deadlines, not plans.' }));
    const day = 86400000;
    const now = Date.now();
    const titles = (n: number, what: string) =>
      Array.from({ length: n }, (_, i) => `${what} ${i + 1}: follow up with the contractor about the quote and the schedule`);
    await create_items(ctx, { items: titles(30, 'Overdue').map((title, i) => ({ title, dueAt: new Date(now - (i + 2) * day).toISOString() })) });
    await create_items(ctx, { items: titles(15, 'Today').map((title) => ({ title, dueAt: new Date(now + 60000).toISOString() })) });
    await create_items(ctx, { items: titles(20, 'Doing').map((title) => ({ title, taskStatus: 'inProgress' })) });
    await create_items(ctx, { items: titles(40, 'Upcoming').map((title, i) => ({ title, dueAt: new Date(now + ((i % 6) + 2) * day).toISOString() })) });
    await create_items(ctx, { items: titles(60, 'Someday').map((title) => ({ title })) });
    await create_items(ctx, { listId: 'notes', items: titles(30, 'Meeting notes').map((title) => ({ title, body: 'Long body. '.repeat(200) })) });
    for (const list of lists) await create_items(ctx, { listId: list.id, items: titles(25, list.name).map((title) => ({ title })) });
    await server.db('memory').insert(
      Array.from({ length: 15 }, (_, i) => ({
        user_id: ada.userId,
        text: `Preference ${i + 1}: prefers short answers, works 9 to 5 London time, partner is called Sam, allergic to peanuts.`,
      })),
    );
    for (let i = 0; i < 5; i++)
      await createAutomation(server.db, ada.userId, { name: `Automation ${i + 1}`, schedule: '0 8 * * *', actions: [{ type: 'postDigest' }] }, new Date());

    const context = await get_context(ctx, {});
    const characters = JSON.stringify(context).length;
    const tokens = Math.ceil(characters / 4);
    const sections = Object.entries(context)
      .map(([key, value]) => `${key} ${Math.ceil(JSON.stringify(value).length / 4)}`)
      .join(', ');
    process.stdout.write(
      `get_context of a realistic workspace (${context.lists.length} lists, ~550 items): ${characters} characters, about ${tokens} tokens (${sections})\n`,
    );
    expect(context.tasks.overdue).toHaveLength(10);
    expect(tokens).toBeLessThan(8000);
  });
});
