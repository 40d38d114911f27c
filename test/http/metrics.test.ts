/** /metrics: the series an operator scrapes, recorded by real requests. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { startTestServer, useTestServer } from '../support/server.js';
import { installSystemReader } from '../../src/core/metrics.js';
import { readSystem } from '../../src/jobs/metrics.js';

describe('/metrics', () => {
  const { server, ada } = useTestServer({ env: { RATE_LIMIT_PER_MINUTE: '5', EMBEDDINGS: 'none' }, search: true });
  let text: string;
  beforeAll(async () => {
    installSystemReader(() => readSystem(server.db));
    const auth = { Authorization: `Bearer ${ada.key}` };
    await fetch(`${server.baseUrl}/api/v1/lists`, { headers: auth });
    await fetch(`${server.baseUrl}/api/v1/search?q=milk`, { headers: auth });
    const client = await server.mcp(ada);
    await client.callTool({ name: 'get_context', arguments: {} });
    await client.close();
    for (let i = 0; i < 4; i++) await fetch(`${server.baseUrl}/api/v1/lists`, { headers: auth });
    const res = await fetch(`${server.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    text = await res.text();
  });

  it.each([
    [
      'REST request duration by operation and status',
      /listkeeper_request_duration_seconds_count\{operation="list_lists",transport="rest",status="200"\} [1-9]/,
    ],
    ['MCP tools/call by tool', /listkeeper_request_duration_seconds_count\{operation="get_context",transport="mcp",status="200"\} [1-9]/],
    ['rate-limit refusals', /listkeeper_rate_limit_refusals_total [1-9]/],
    ['search latency by mode', /listkeeper_search_duration_seconds_count\{mode="(hybrid|keyword)"\} [1-9]/],
    ['outbox lag', /listkeeper_outbox_lag_seconds \d/],
    ['queue depth', /# TYPE listkeeper_queue_depth gauge/],
    ['embedding backlog', /listkeeper_embedding_backlog \d/],
    ['webhook failures', /# TYPE listkeeper_webhook_failures_total counter/],
    ['process metrics', /listkeeper_process_resident_memory_bytes \d/],
  ])('shows %s', (_name, pattern) => {
    expect(text).toMatch(pattern);
  });

  it('names no backlog of the tallies, which are kept in place', () => {
    expect(text).not.toMatch(/tally/);
  });

  it('asks for METRICS_TOKEN when one is set', async () => {
    const guarded = await startTestServer({ METRICS_TOKEN: 'scrape-secret' });
    try {
      expect((await fetch(`${guarded.baseUrl}/metrics`)).status).toBe(401);
      expect((await fetch(`${guarded.baseUrl}/metrics`, { headers: { Authorization: 'Bearer scrape-secret' } })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
