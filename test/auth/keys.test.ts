/**
 * The authorization server's state lives in Postgres: keys made once and shared, rotation
 * and retirement, and clients, grants and refresh tokens surviving a restart.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { decodeProtectedHeader } from 'jose';
import { migrate } from '../../src/store/db.js';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { hashPassword } from '../../src/domain/accounts/passwords.js';
import { loadOrCreateKeys, readKeys, retireKeys, rotateKeys } from '../../src/auth/oauth/keys.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { serveApp, type TestApp } from '../support/server.js';
import { tokenRequest, authorizedCode, redeemCode } from '../support/oauth.js';

const PASSWORD = 'correct horse battery staple';

describe('OAuth keys and state in Postgres', () => {
  let database: TestDatabase;
  const opened: TestApp[] = [];
  let email: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    await migrate(database.knex);
    email = (await createUser(database.knex, { email: 'keys@example.com', name: 'Keys', passwordHash: await hashPassword(PASSWORD) })).email;
  });
  afterAll(async () => {
    await Promise.all(opened.map((a) => a.close()));
    await database?.drop();
  });

  const open = async (env: Record<string, string> = {}) => {
    const app = await serveApp(database.knex, env);
    opened.push(app);
    return app;
  };

  /** A full authorization through `app`, whose BASE_URL (the resource) is `resource`. */
  async function connect(app: TestApp, resource = app.baseUrl) {
    const got = await authorizedCode(app.baseUrl, { email, password: PASSWORD }, { params: { resource } });
    const token = await redeemCode(app.baseUrl, got);
    expect(token.status).toBe(200);
    return { client: got.client, accessToken: String(token.body.access_token), refreshToken: String(token.body.refresh_token) };
  }

  it('creates one signing key and one cookie secret, even when processes start at once, and reuses them', async () => {
    const results = await Promise.all([loadOrCreateKeys(database.knex), loadOrCreateKeys(database.knex), loadOrCreateKeys(database.knex)]);
    const stored = await readKeys(database.knex);
    expect(stored.signing).toHaveLength(1);
    expect(stored.cookie).toHaveLength(1);
    expect(stored.signing[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    for (const keys of results) expect(keys).toEqual(stored);
  });

  it('keeps clients, grants and refresh tokens across a restart, and keeps access tokens valid', async () => {
    const first = await open();
    const { client, accessToken, refreshToken } = await connect(first);
    await first.close();
    // The same address again, as after a restart: a new process on the same database.
    const again = await open({ BASE_URL: first.baseUrl });
    expect((await fetch(`${again.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${accessToken}` } })).status).toBe(200);
    const refreshed = await tokenRequest(again.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId });
    expect(refreshed.status).toBe(200);
  });

  it('rotates: new processes sign with the new key, and older processes still accept their tokens', async () => {
    const old = await open();
    const { signingKid } = await rotateKeys(database.knex);
    const rotated = await open({ BASE_URL: old.baseUrl });
    const { accessToken } = await connect(rotated, old.baseUrl);
    expect(decodeProtectedHeader(accessToken).kid).toBe(signingKid);
    // The old process learns the new key from the database on first sight of its kid.
    expect((await fetch(`${old.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${accessToken}` } })).status).toBe(200);
  });

  it('refuses to retire keys while the newest is younger than an access token lifetime, then retires all but the newest', async () => {
    await loadOrCreateKeys(database.knex);
    await rotateKeys(database.knex);
    await expect(retireKeys(database.knex)).rejects.toThrow(/younger than 3600 seconds/);
    const before = await readKeys(database.knex);
    expect(before.signing.length).toBeGreaterThan(1);
    const { retired } = await retireKeys(database.knex, 3600, new Date(Date.now() + 2 * 3600_000));
    expect(retired.length).toBe(before.signing.length - 1 + before.cookie.length - 1);
    const after = await readKeys(database.knex);
    expect(after.signing).toEqual([before.signing[0]]);
    expect(after.cookie).toEqual([before.cookie[0]]);
  });
});
