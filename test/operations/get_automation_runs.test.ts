import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { get_automation_runs } from '../../src/operations/get_automation_runs.js';
import { createAutomation } from '../../src/domain/automations/automations.js';

describe('get_automation_runs', () => {
  const { server, ada } = useTestServer();
  let automationId: string;
  beforeAll(async () => {
    automationId = (await createAutomation(server.db, ada.userId, { name: 'Digest', actions: [{ type: 'postDigest' }] }, new Date())).id;
    const base = Date.parse('2026-06-01T08:00:00Z');
    await server.db('automation_runs').insert(
      Array.from({ length: 8 }, (_, i) => ({
        automation_id: automationId,
        owner_id: ada.userId,
        trigger: i % 2 ? 'schedule' : 'manual',
        scheduled_for: i % 2 ? new Date(base + i * 3600000) : null,
        outcome: i === 7 ? 'failed' : 'succeeded',
        created_at: new Date(base + i * 3600000),
        started_at: new Date(base + i * 3600000 + 1000),
        finished_at: new Date(base + i * 3600000 + 5000),
        wrote: JSON.stringify([`run ${i}`]),
        message: `message ${i}`,
        error: i === 7 ? 'Action 1 (webhook) failed: the webhook answered HTTP 500.' : null,
      })),
    );
  });

  it('returns the automation and its latest 5 runs by default, newest first, each with what it wrote', async () => {
    const result = await get_automation_runs(server.context(ada), { id: automationId });
    expect(result.automation).toMatchObject({ id: automationId, name: 'Digest', lastRun: { outcome: 'failed' } });
    expect(result.runs.map((r) => r.wrote[0])).toEqual(['run 7', 'run 6', 'run 5', 'run 4', 'run 3']);
    expect(result.runs[0]).toEqual({
      runId: expect.any(String),
      trigger: 'schedule',
      startedAt: '2026-06-01T15:00:01.000Z',
      finishedAt: '2026-06-01T15:00:05.000Z',
      outcome: 'failed',
      wrote: ['run 7'],
      message: 'message 7',
      error: 'Action 1 (webhook) failed: the webhook answered HTTP 500.',
    });
  });

  it('pages through every run with nextCursor, the automation keeping its newest run as lastRun', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await get_automation_runs(server.context(ada), { id: automationId, limit: 3, ...(cursor ? { cursor } : {}) });
      expect(result.automation.lastRun).toMatchObject({ outcome: 'failed' });
      seen.push(...result.runs.map((r) => r.wrote[0]!));
      expect(result.nextCursor === null).toBe(!result.hasMore);
      if (!result.hasMore) break;
      cursor = result.nextCursor!;
    }
    expect(seen).toEqual(['run 7', 'run 6', 'run 5', 'run 4', 'run 3', 'run 2', 'run 1', 'run 0']);
    const refused = await get_automation_runs(server.context(ada), { id: automationId, cursor: 'bogus' }).catch((e: unknown) => e);
    expect((refused as { toBody(): object }).toBody()).toMatchObject({ code: 'toolError', field: 'cursor' });
  });

  it('takes a limit from 1 to 20 and refuses others with 400', async () => {
    expect((await get_automation_runs(server.context(ada), { id: automationId, limit: 1 })).runs).toHaveLength(1);
    expect((await ada.sdk.GET('/automations/{id}/runs', { params: { path: { id: automationId }, query: { limit: 20 } } })).data!.runs).toHaveLength(8);
    const res = await fetch(`${server.baseUrl}/api/v1/automations/${automationId}/runs?limit=21`, { headers: { Authorization: `Bearer ${ada.key}` } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid' });
  });

  it('answers 404 for an unknown or foreign automation', async () => {
    const bob = await server.account('Bob');
    const res = await bob.sdk.GET('/automations/{id}/runs', { params: { path: { id: automationId } } });
    expect(res.response.status).toBe(404);
  });

  it('is the same over REST and MCP', async () => {
    const rest = await ada.sdk.GET('/automations/{id}/runs', { params: { path: { id: automationId }, query: { limit: 3 } } });
    const mcp = await (await server.mcp(ada)).callTool({ name: 'get_automation_runs', arguments: { id: automationId, limit: 3 } });
    expect(mcp.structuredContent).toEqual(rest.data);
  });
});
