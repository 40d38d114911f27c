import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';

describe('revoke_app_password', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });

  it('refuses the client from its next request; another person cannot revoke it', async () => {
    const made = await call(server.personContext(ada), 'create_app_password', { name: 'Thunderbird' });
    const propfind = () =>
      fetch(`${server.baseUrl}/dav/`, {
        method: 'PROPFIND',
        headers: { depth: '0', authorization: `Basic ${Buffer.from(`${ada.email}:${made.password}`).toString('base64')}` },
      });
    expect((await propfind()).status).toBe(207);
    expect(await call(server.personContext(account('Bea')), 'revoke_app_password', { id: made.id })).toEqual({ revoked: false });
    expect(await call(server.personContext(ada), 'revoke_app_password', { id: made.id })).toEqual({ revoked: true });
    expect((await propfind()).status).toBe(401);
  });
});
