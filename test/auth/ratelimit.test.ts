/**
 * Rate limits shared through Postgres by two app instances, each with its own connection
 * pool on the same database: exactly N requests pass in a window, under concurrency, per
 * token (OAuth access token, API key, or a bad key) and per client address.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import knexFactory, { type Knex } from 'knex';
import { migrate } from '../../src/store/db.js';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { hashPassword } from '../../src/domain/accounts/passwords.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { serveApp, type TestApp } from '../support/server.js';
import { authorizedCode, redeemCode } from '../support/oauth.js';

const TOKEN_LIMIT = 10;
const ADDRESS_LIMIT = 15;
const PASSWORD = 'correct horse battery staple';

/**
 * Two instances on one database as behind one load balancer: the same BASE_URL (the first
 * one's address), separate connection pools, and a fixed clock (one window) for both.
 */
async function twoInstances(database: TestDatabase, second: Knex, env: Record<string, string>, at: string): Promise<[TestApp, TestApp]> {
  const first = await serveApp(database.knex, env);
  const apps: [TestApp, TestApp] = [first, await serveApp(second, { ...env, BASE_URL: first.baseUrl })];
  const fixed = new Date(at);
  for (const app of apps) app.services.now = () => fixed;
  return apps;
}

/** Fires `count` requests at once, alternating between the instances. */
async function burst(apps: TestApp[], count: number, request: (baseUrl: string, i: number) => Promise<Response>): Promise<Response[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => request(apps[i % apps.length]!.baseUrl, i)));
}

const statuses = (responses: Response[]) => responses.map((r) => r.status);
const count = (values: number[], status: number) => values.filter((s) => s === status).length;

describe('rate limits across two instances', () => {
  let database: TestDatabase;
  let second: Knex;
  const opened: TestApp[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    await migrate(database.knex);
    second = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 4 } });
  });
  afterAll(async () => {
    await Promise.all(opened.map((a) => a.close()));
    await second?.destroy();
    await database?.drop();
  });

  describe('per token', () => {
    let apps: TestApp[];
    let key: string;
    let userEmail: string;
    beforeAll(async () => {
      apps = await twoInstances(database, second, { RATE_LIMIT_PER_MINUTE: String(TOKEN_LIMIT) }, '2026-11-22T10:00:30Z');
      opened.push(...apps);
      const user = await createUser(database.knex, { email: 'rate@example.com', name: 'Rate', passwordHash: await hashPassword(PASSWORD) });
      userEmail = user.email;
      key = await createApiKey(database.knex, user.id);
    });

    const get = (token: string) => (baseUrl: string) => fetch(`${baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${token}` } });

    it(`lets exactly ${TOKEN_LIMIT} requests of one API key through, then 429 with Retry-After and code rateLimited`, async () => {
      const responses = await burst(apps, 3 * TOKEN_LIMIT, get(key));
      expect(count(statuses(responses), 200)).toBe(TOKEN_LIMIT);
      expect(count(statuses(responses), 429)).toBe(2 * TOKEN_LIMIT);
      const refused = responses.find((r) => r.status === 429)!;
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(await refused.json()).toMatchObject({ code: 'rateLimited' });
    });

    it(`counts a bad key too: exactly ${TOKEN_LIMIT} answers 401, the rest 429`, async () => {
      const s = statuses(await burst(apps, 3 * TOKEN_LIMIT, get(`lk_${'z'.repeat(45)}`)));
      expect(count(s, 401)).toBe(TOKEN_LIMIT);
      expect(count(s, 429)).toBe(2 * TOKEN_LIMIT);
    });

    it(`limits an OAuth access token the same way`, async () => {
      const [a] = apps;
      const token = await redeemCode(a!.baseUrl, await authorizedCode(a!.baseUrl, { email: userEmail, password: PASSWORD }));
      const accessToken = String(token.body.access_token);
      // Issued through instance A; instance B verifies it too (same keys, same database).
      const s = statuses(await burst(apps, 3 * TOKEN_LIMIT, get(accessToken)));
      expect(count(s, 200)).toBe(TOKEN_LIMIT);
      expect(count(s, 429)).toBe(2 * TOKEN_LIMIT);
    });
  });

  describe('per address', () => {
    let apps: TestApp[];
    beforeAll(async () => {
      apps = await twoInstances(database, second, { RATE_LIMIT_PER_ADDRESS_PER_MINUTE: String(ADDRESS_LIMIT) }, '2026-11-22T11:00:30Z');
      opened.push(...apps);
    });

    const requests: ((baseUrl: string) => Promise<Response>)[] = [
      (b) => fetch(`${b}/api/v1/lists`),
      (b) => fetch(`${b}/api/v1/lists`, { headers: { Authorization: `Bearer lk_${'q'.repeat(45)}` } }),
      (b) =>
        fetch(`${b}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      (b) =>
        fetch(`${b}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=refresh_token&refresh_token=nope&client_id=nope',
        }),
      (b) => fetch(`${b}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
      (b) => fetch(`${b}/signin`),
      // A bearer token on routes the bearer guard does not cover: counted all the same.
      (b) => fetch(`${b}/api/v1/openapi.json`, { headers: { Authorization: `Bearer lk_${'q'.repeat(45)}` } }),
      (b) => fetch(`${b}/mcp/elsewhere`, { headers: { Authorization: `Bearer lk_${'q'.repeat(45)}` } }),
    ];

    it(`lets exactly ${ADDRESS_LIMIT} requests from one address through, authenticated or not, on every endpoint`, async () => {
      const responses = await burst(apps, 4 * ADDRESS_LIMIT, (b, i) => requests[i % requests.length]!(b));
      const s = statuses(responses);
      expect(count(s, 429)).toBe(3 * ADDRESS_LIMIT);
      expect(s.filter((x) => x !== 429)).toHaveLength(ADDRESS_LIMIT);
      for (const refused of responses.filter((r) => r.status === 429)) {
        expect(refused.headers.get('retry-after')).toBe('30');
        const body = (await refused.json()) as Record<string, unknown>;
        if (new URL(refused.url).pathname === '/mcp') {
          expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32029, data: { code: 'rateLimited' } } });
        } else {
          expect(body).toMatchObject({ code: 'rateLimited' });
        }
      }
    });

    it('keeps answering health probes when the address is over its limit', async () => {
      expect((await fetch(`${apps[0]!.baseUrl}/api/v1/lists`)).status).toBe(429);
      expect((await fetch(`${apps[1]!.baseUrl}/healthz`)).status).toBe(200);
    });

    it('answers a bearer call to /mcp over the address limit with 429 and the CORS headers of its allowed origin', async () => {
      const origin = new URL(apps[0]!.baseUrl).origin;
      const refused = await fetch(`${apps[1]!.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          origin,
          authorization: `Bearer lk_${'q'.repeat(45)}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('access-control-allow-origin')).toBe(origin);
      expect(refused.headers.get('access-control-expose-headers')).toContain('Retry-After');
      expect(refused.headers.get('retry-after')).toBe('30');
    });

    it('counts the next window afresh', async () => {
      const later = new Date('2026-11-22T11:01:05Z');
      for (const app of apps) app.services.now = () => later;
      expect((await fetch(`${apps[0]!.baseUrl}/api/v1/lists`)).status).toBe(401);
    });
  });
});
