/**
 * Rate-limit counting in Postgres: requests that count the same buckets while a count is on
 * its way are counted together in one statement, each keeping its own place in the window,
 * so the limit is exact and a burst costs fewer round trips than requests.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import knexFactory, { type Knex } from 'knex';
import { migrate } from '../../../src/store/db.js';
import { countAndAuthenticate, countRequest, findOAuthGrant } from '../../../src/domain/accounts/rate-limits.js';
import { createUser } from '../../../src/domain/accounts/accounts.js';
import { createApiKey, hashToken } from '../../../src/domain/accounts/api-keys.js';
import { createTestDatabase, type TestDatabase } from '../../support/db.js';

describe('counting requests', () => {
  let database: TestDatabase;
  let db: Knex;
  let other: Knex;
  const statements: string[] = [];
  const now = new Date('2026-11-26T10:00:05Z');

  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.knex;
    await migrate(db);
    other = knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 4 } });
    db.on('query', (q: { sql: string }) => {
      if (q.sql.includes('INSERT INTO rate_limits')) statements.push(q.sql);
    });
  });
  afterAll(async () => {
    await other?.destroy();
    await database?.drop();
  });

  const count = async (bucket: string) => Number(((await db('rate_limits').where({ bucket }).first()) as { count: number } | undefined)?.count ?? 0);

  it('gives each of a concurrent burst its own place, lets exactly the limit pass, in fewer statements', async () => {
    statements.length = 0;
    const decisions = await Promise.all(
      Array.from({ length: 40 }, () =>
        countAndAuthenticate(
          db,
          [
            { bucket: 't:burst', limit: 25 },
            { bucket: 'a:burst', limit: 100 },
          ],
          null,
          now,
        ).then((counted) => counted.decisions),
      ),
    );
    expect(decisions.filter(([token]) => token!.allowed)).toHaveLength(25);
    // Places 1..40 each once: remaining 24..0 for the 25 that pass; every address decision distinct.
    expect(decisions.map(([, address]) => address!.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => 60 + i));
    expect(
      decisions
        .filter(([token]) => token!.allowed)
        .map(([token]) => token!.remaining)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(decisions.every(([token, address]) => token!.resetSeconds === 55 && address!.resetSeconds === 55)).toBe(true);
    expect(await count('t:burst')).toBe(40);
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.length).toBeLessThan(40);
  });

  it('runs a lone request at once, one statement each', async () => {
    statements.length = 0;
    for (let i = 1; i <= 3; i++) expect((await countRequest(db, 't:lone', 10, now)).remaining).toBe(10 - i);
    expect(statements).toHaveLength(3);
  });

  it('stays exact with two processes counting the same bucket at once', async () => {
    const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => countRequest(i % 2 ? db : other, 't:two', 12, now)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(12);
    expect(
      decisions
        .map((d) => d.remaining)
        .filter((r) => r > 0)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    expect(await count('t:two')).toBe(30);
  });

  it('keeps windows apart: a request in the next minute starts a new count', async () => {
    const [late] = await Promise.all([countRequest(db, 't:window', 5, new Date('2026-11-26T10:01:00Z')), countRequest(db, 't:window', 5, now)]);
    expect(late!.remaining).toBe(4);
  });

  it('finds the API key of the hash in the counting statement, and none for an unknown hash', async () => {
    const user = await createUser(db, { email: 'counted@example.com', name: 'Counted' });
    const key = await createApiKey(db, user.id);
    statements.length = 0;
    const [known, unknown] = await Promise.all([
      countAndAuthenticate(db, [{ bucket: 't:known', limit: 5 }], hashToken(key), now),
      countAndAuthenticate(db, [{ bucket: 't:unknown', limit: 5 }], hashToken(`lk_${'x'.repeat(45)}`), now),
    ]);
    expect(known.apiKey).toEqual({ id: expect.any(String), userId: user.id, grant: null });
    expect(known.appPassword).toBeNull();
    expect(known.decisions).toEqual([{ allowed: true, limit: 5, remaining: 4, resetSeconds: 55 }]);
    expect(unknown.apiKey).toBeNull();
    expect(statements).toHaveLength(2);
  });
  it('reads the OAuth grant a token names in the counting statement: live, unknown and expired', async () => {
    const user = await createUser(db, { email: 'granted@example.com', name: 'Granted' });
    const payload = (clientId: string) => JSON.stringify({ clientId, connectionGrant: { level: 'read' } });
    await db('oauth_payloads').insert([
      { model: 'Client', id: 'client-1', payload: JSON.stringify({ client_name: 'Counting Agent' }) },
      { model: 'Grant', id: 'grant-live', payload: payload('client-1'), account_id: user.id, expires_at: new Date(Date.now() + 3_600_000) },
      { model: 'Grant', id: 'grant-expired', payload: payload('client-1'), account_id: user.id, expires_at: new Date(Date.now() - 1000) },
    ]);
    statements.length = 0;
    const [live, unknown, expired, none] = await Promise.all([
      countAndAuthenticate(db, [{ bucket: 't:g1', limit: 5 }], null, now, 'grant-live'),
      countAndAuthenticate(db, [{ bucket: 't:g2', limit: 5 }], null, now, 'no-such-grant'),
      countAndAuthenticate(db, [{ bucket: 't:g3', limit: 5 }], null, now, 'grant-expired'),
      countAndAuthenticate(db, [{ bucket: 't:g4', limit: 5 }], null, now),
    ]);
    const row = { account_id: user.id, client_id: 'client-1', client_name: 'Counting Agent', connection_grant: { level: 'read' } };
    expect(live.oauthGrant).toEqual(row);
    expect(live.decisions[0]).toMatchObject({ allowed: true, remaining: 4 });
    expect([unknown.oauthGrant, expired.oauthGrant, none.oauthGrant]).toEqual([null, null, null]);
    expect(statements).toHaveLength(4);
    // The verifier's own read, for a caller that did not count: the same row.
    expect(await findOAuthGrant(db, 'grant-live')).toEqual(row);
    expect(await findOAuthGrant(db, 'grant-expired')).toBeNull();
  });
});
