import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';

describe('revoke_api_key', () => {
  const { server, ada } = useTestServer();

  it('revokes the key (401 from then on) and says when there was none', async () => {
    expect(await call(server.personContext(ada), 'revoke_api_key', {})).toEqual({ revoked: true });
    expect((await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${ada.key}` } })).status).toBe(401);
    expect(await call(server.personContext(ada), 'revoke_api_key', {})).toEqual({ revoked: false });
  });
});
