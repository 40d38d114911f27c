/** The REST adapter's guards and error rendering, over real HTTP. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';

describe('REST adapter', () => {
  const { server, ada } = useTestServer();

  const call = (path: string, init: RequestInit = {}, token: string | null = ada.key) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string>) },
    });

  it('answers 401 with WWW-Authenticate naming the protected-resource metadata without a token', async () => {
    const res = await call('/api/v1/lists', {}, null);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.baseUrl}/.well-known/oauth-protected-resource"`);
    expect(await res.json()).toMatchObject({ code: 'unauthorized' });
  });

  it('answers 401 for a well-formed but unknown key, and for a replaced key', async () => {
    expect((await call('/api/v1/lists', {}, `lk_${'x'.repeat(45)}`)).status).toBe(401);
    const bea = await server.account('Bea');
    const { createApiKey } = await import('../../src/domain/accounts/api-keys.js');
    const newKey = await createApiKey(server.db, bea.userId);
    expect((await call('/api/v1/lists', {}, bea.key)).status).toBe(401);
    expect((await call('/api/v1/lists', {}, newKey)).status).toBe(200);
  });

  it('shows the three default lists to a new account', async () => {
    const res = await call('/api/v1/lists');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { total: number; lists: { name: string; role: string; isLifeAdmin: boolean }[] };
    expect(body.lists.map((l) => [l.name, l.role, l.isLifeAdmin])).toEqual([
      ['Tasks', 'tasks', false],
      ['Notes', 'notes', false],
      ['Life Admin', 'tasks', true],
    ]);
  });

  it('answers 405 with Allow for an unsupported method', async () => {
    const res = await call('/api/v1/lists', { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
    expect(await res.json()).toMatchObject({ code: 'methodNotAllowed' });
  });

  it('answers 404 notFound for an unknown route', async () => {
    const res = await call('/api/v1/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'notFound' });
  });

  it.each([
    ['malformed JSON', '{"name": ', 'application/json', /not valid JSON/],
    ['a wrong content type', 'name=x', 'application/x-www-form-urlencoded', /Content-Type/],
    ['a body over the limit', JSON.stringify({ name: 'x'.repeat(6 * 1024 * 1024) }), 'application/json', /limit/],
    ['an unknown field', JSON.stringify({ name: 'x', colour: 'red' }), 'application/json', /'colour' is not a known field/],
    ['a missing required field', JSON.stringify({ icon: '📚' }), 'application/json', /'name' is required/],
    ['instructions over 500 characters', JSON.stringify({ name: 'x', instructions: 'y'.repeat(501) }), 'application/json', /instructions/],
  ])('answers 400 invalid for %s', async (_case, body, type, message) => {
    const res = await call('/api/v1/lists', { method: 'POST', body, headers: { 'Content-Type': type } });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: string; code: string };
    expect(json.code).toBe('invalid');
    expect(json.error).toMatch(message);
  });

  it('coerces typed query parameters and refuses ones outside the schema', async () => {
    expect((await call('/api/v1/lists?suppressOptions=true')).status).toBe(200);
    const res = await call('/api/v1/lists?suppressOptions=maybe');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/suppressOptions/);
  });

  it('serves the OpenAPI document without a token', async () => {
    const res = await call('/api/v1/openapi.json', {}, null);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: object };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/items/{id}');
  });

  it('answers health and readiness probes', async () => {
    expect((await call('/healthz', {}, null)).status).toBe(200);
    expect((await call('/readyz', {}, null)).status).toBe(200);
  });

  it('sends RateLimit headers on every authenticated response', async () => {
    const res = await call('/api/v1/lists');
    expect(Number(res.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
    expect(res.headers.get('ratelimit-remaining')).not.toBeNull();
  });
});

describe('rate limit', () => {
  const { server } = useTestServer({ env: { RATE_LIMIT_PER_MINUTE: '5' }, accounts: [] });
  beforeAll(async () => {
    // A fixed clock keeps every request of a case inside one window.
    const fixed = new Date('2026-11-22T10:00:30Z');
    server.services.now = () => fixed;
  });

  const get = (token: string) => fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${token}` } });

  it('lets exactly the limit through, then answers 429 with Retry-After and code rateLimited', async () => {
    const ada = await server.account('Ada');
    const statuses = await Promise.all(Array.from({ length: 8 }, () => get(ada.key).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    const res = await get(ada.key);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await res.json()).toMatchObject({ code: 'rateLimited' });
  });

  it('counts a bad key before authenticating it', async () => {
    const bad = `lk_${'b'.repeat(45)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(bad)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });

  it('answers a JSON-RPC error besides 429 on /mcp', async () => {
    const bad = `lk_${'m'.repeat(45)}`;
    for (let i = 0; i < 5; i++) await get(bad);
    const res = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${bad}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32029, data: { code: 'rateLimited' } } });
  });
});
