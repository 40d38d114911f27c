/**
 * Finding 13: codes and refresh tokens are stored hashed. A copy of `oauth_payloads` holds no
 * code or refresh token in any id or payload, the hashed rows still redeem, and rows written
 * in clear before the change are converted by the migration and keep working.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { tokenRequest, authorizedCode, redeemCode } from '../support/oauth.js';
import { hashToken } from '../../src/domain/accounts/api-keys.js';
import { up as hashCredentials } from '../../src/store/migrations/20261125000200_hash_oauth_credentials.js';

const PASSWORD = 'correct horse battery staple';

describe('OAuth credentials at rest', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
  });

  const authorize = () => authorizedCode(server.baseUrl, { email: ada.email, password: PASSWORD }, { name: 'Careful Agent' });
  const table = async () => JSON.stringify(await server.db('oauth_payloads').select('model', 'id', 'payload'));

  it('stores neither the code nor the refresh token, and both still redeem', async () => {
    const { client, verifier, code } = await authorize();
    expect(await table()).not.toContain(code);
    expect(
      await server
        .db('oauth_payloads')
        .where({ model: 'AuthorizationCode', id: hashToken(code) })
        .first(),
    ).toBeDefined();

    const tokens = await redeemCode(server.baseUrl, { client, verifier, code });
    expect(tokens.status).toBe(200);
    const refreshToken = String(tokens.body.refresh_token);
    const stored = await table();
    expect(stored).not.toContain(refreshToken);
    expect(stored).not.toContain(String(tokens.body.access_token));

    const refreshed = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId });
    expect(refreshed.status).toBe(200);
    expect(await table()).not.toContain(String(refreshed.body.refresh_token));
    // The rotated-out token is refused as before.
    expect((await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId })).status).toBe(400);
  });

  it('converts refresh tokens stored in clear by an earlier build, which then keep working', async () => {
    const got = await authorize();
    const { client } = got;
    const tokens = await redeemCode(server.baseUrl, got);
    const refreshToken = String(tokens.body.refresh_token);
    // Put the row back as an earlier build wrote it: the token as the id and as jti in the payload.
    await server
      .db('oauth_payloads')
      .where({ model: 'RefreshToken', id: hashToken(refreshToken) })
      .update({ id: refreshToken, payload: server.db.raw(`payload || jsonb_build_object('jti', ?::text)`, [refreshToken]) });
    expect(await table()).toContain(refreshToken);

    await hashCredentials(server.db);
    expect(await table()).not.toContain(refreshToken);
    const refreshed = await tokenRequest(server.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId });
    expect(refreshed.status).toBe(200);
  });
});
