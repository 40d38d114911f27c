import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { list_automations } from '../../src/operations/list_automations.js';
import { createAutomation, setStatus } from '../../src/domain/automations/automations.js';

describe('list_automations', () => {
  const { server, ada } = useTestServer();

  it('is empty for a new account', async () => {
    expect(await list_automations(server.context(ada), {})).toEqual({ count: 0, automations: [] });
  });

  it("lists what each does, its status, schedule in the person's time zone, next run and last run", async () => {
    // Sunday 2026-03-29 00:30 UTC is 00:30 GMT; British Summer Time starts at 01:00 UTC that day.
    const now = new Date('2026-03-29T00:30:00Z');
    const weekly = await createAutomation(
      server.db,
      ada.userId,
      {
        name: 'Weekly review',
        schedule: '0 9 * * 1',
        actions: [
          { type: 'createItems', items: [{ title: 'Weekly review' }] },
          { type: 'postDigest', daysAhead: 3 },
        ],
      },
      now,
    );
    await createAutomation(
      server.db,
      ada.userId,
      { name: 'Tidy', description: 'Keeps lists short.', status: 'draft', schedule: '0 2 * * *', actions: [{ type: 'archiveCompleted', olderThanDays: 30 }] },
      now,
    );
    await server.db('automation_runs').insert({
      automation_id: weekly.id,
      owner_id: ada.userId,
      trigger: 'manual',
      outcome: 'failed',
      created_at: now,
      started_at: now,
      finished_at: now,
      error: 'Action 1 failed.',
    });
    const result = await list_automations(server.context(ada), {});
    expect(result.count).toBe(2);
    expect(result.automations[0]).toEqual({
      id: weekly.id,
      name: 'Weekly review',
      description: "Creates 'Weekly review' on tasks, then posts a digest of overdue and due tasks (and the next 3 days).",
      status: 'active',
      schedule: '0 9 * * 1',
      timezone: 'Europe/London',
      // Monday 09:00 in London is 08:00 UTC once summer time has begun.
      nextRunAt: '2026-03-30T08:00:00.000Z',
      lastRun: { runId: expect.any(String), startedAt: now.toISOString(), finishedAt: now.toISOString(), outcome: 'failed', error: 'Action 1 failed.' },
      chatItemId: null,
      actions: [
        { type: 'createItems', items: [{ title: 'Weekly review' }] },
        { type: 'postDigest', daysAhead: 3 },
      ],
    });
    expect(result.automations[1]).toMatchObject({ name: 'Tidy', description: 'Keeps lists short.', status: 'draft', nextRunAt: null, lastRun: null });
  });

  it('has no next run while paused, and one again when resumed', async () => {
    const a = await createAutomation(server.db, ada.userId, { name: 'Pausable', schedule: '*/30 * * * *', actions: [{ type: 'postDigest' }] }, new Date());
    await setStatus(server.db, ada.userId, a.id, 'paused', new Date());
    expect((await list_automations(server.context(ada), {})).automations.find((x) => x.id === a.id)).toMatchObject({ status: 'paused', nextRunAt: null });
    await setStatus(server.db, ada.userId, a.id, 'active', new Date('2026-05-01T10:10:00Z'));
    expect((await list_automations(server.context(ada), {})).automations.find((x) => x.id === a.id)?.nextRunAt).toBe('2026-05-01T10:30:00.000Z');
  });

  it("shows only the caller's automations, the same over REST and MCP", async () => {
    const bob = await server.account('Bob');
    await createAutomation(server.db, bob.userId, { name: 'Bob only', actions: [{ type: 'postDigest' }] }, new Date());
    const rest = await ada.sdk.GET('/automations');
    expect(rest.data!.automations.map((a) => a.name)).not.toContain('Bob only');
    const mcp = await (await server.mcp(ada)).callTool({ name: 'list_automations', arguments: {} });
    expect(mcp.structuredContent).toEqual(rest.data);
  });
});
