import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { startTestServer, type TestServer, type TestAccount } from '../support/server.js';
import { get_context } from '../../src/operations/get_context.js';
import { create_list } from '../../src/operations/create_list.js';

describe('get_context', () => {
  let server: TestServer;
  let ada: TestAccount;
  beforeAll(async () => {
    server = await startTestServer();
    ada = await server.account('Ada');
  });
  afterAll(async () => server.close());

  it('shows the user with today\'s date and local time in their time zone', async () => {
    const ctx = { ...server.context(ada), services: { now: () => new Date('2026-07-01T23:30:00Z') } };
    const { user } = await get_context(ctx, {});
    expect(user).toMatchObject({ name: 'Ada', timezone: 'Europe/London', today: '2026-07-02', localTime: '00:30' });
  });

  it('lists every list with ids, roles and counts, and names Tasks and Notes by id', async () => {
    await create_list(server.context(ada), { name: 'Books', properties: [{ name: 'Author', type: 'text' }] });
    const result = await get_context(server.context(ada), {});
    expect(result.lists.map((l) => [l.name, l.role])).toEqual([['Tasks', 'tasks'], ['Notes', 'notes'], ['Life Admin', 'tasks'], ['Books', 'other']]);
    expect(result.lists.find((l) => l.id === result.tasksListId)?.name).toBe('Tasks');
    expect(result.notesListId).toBe(result.lists[1]!.id);
    expect(result.unavailable).toEqual(['email', 'connected apps']);
    expect(result.links.web).toBe(`${server.baseUrl}/artifacts/{id}`);
    expect(result.activity[0]).toMatchObject({ action: 'list.created', viaConnection: true });
  });

  it('scopes the task sections to focusListId and refuses an unknown one with 404', async () => {
    const result = await get_context(server.context(ada), { focusListId: 'tasks' });
    expect(result.focusListId).toBe(result.tasksListId);
    const res = await fetch(`${server.baseUrl}/api/v1/context?focusListId=00000000-0000-4000-8000-000000000000`, { headers: { Authorization: `Bearer ${ada.key}` } });
    expect(res.status).toBe(404);
  });

  it('is the same through REST and MCP', async () => {
    const rest = await ada.sdk.GET('/context');
    const mcp = await (await server.mcp(ada)).callTool({ name: 'get_context', arguments: {} });
    const strip = (c: Record<string, unknown>) => ({ ...c, user: { ...(c.user as object), localTime: '' } });
    expect(strip(mcp.structuredContent as Record<string, unknown>)).toEqual(strip(rest.data as unknown as Record<string, unknown>));
  });
});
