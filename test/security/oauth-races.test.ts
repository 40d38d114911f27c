/**
 * One authorization code, or one refresh token, redeemed twice at the same moment: exactly one
 * redemption succeeds, and the loser is treated as reuse (the connection is revoked).
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { tokenRequest, authorizedCode, redeemCode } from '../support/oauth.js';

const PASSWORD = 'correct horse battery staple';

describe('OAuth redemption races', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
  });

  const code = () => authorizedCode(server.baseUrl, { email: ada.email, password: PASSWORD }, { name: 'Racing Agent' });

  it('lets one of two parallel redemptions of a code succeed, six times over', async () => {
    for (let attempt = 0; attempt < 6; attempt++) {
      const got = await code();
      const answers = await Promise.all([redeemCode(server.baseUrl, got), redeemCode(server.baseUrl, got)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
      expect(answers.find((a) => a.status === 400)!.body.error).toBe('invalid_grant');
    }
  }, 60000);

  it('never forks a refresh token into two living chains', async () => {
    for (let attempt = 0; attempt < 4; attempt++) {
      const got = await code();
      const { client } = got;
      const first = await redeemCode(server.baseUrl, got);
      const refresh = { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token), client_id: client.clientId };
      const answers = await Promise.all([tokenRequest(server.baseUrl, refresh), tokenRequest(server.baseUrl, refresh)]);
      const living = [];
      for (const answer of answers.filter((a) => a.status === 200)) {
        const next = await tokenRequest(server.baseUrl, {
          grant_type: 'refresh_token',
          refresh_token: String(answer.body.refresh_token),
          client_id: client.clientId,
        });
        if (next.status === 200) living.push(next);
      }
      expect(living.length).toBeLessThanOrEqual(1);
      expect(answers.filter((a) => a.status === 200).length).toBeLessThanOrEqual(1);
    }
  }, 60000);
});
