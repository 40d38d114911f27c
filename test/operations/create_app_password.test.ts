import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';

describe('create_app_password', () => {
  const { server, ada } = useTestServer();

  it('makes a password shown once, which signs a CalDAV client in over HTTP Basic', async () => {
    const made = await call(server.personContext(ada), 'create_app_password', { name: ' Phone ' });
    expect(made).toMatchObject({ name: 'Phone', password: expect.stringMatching(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/) });
    const row = await server.db('app_passwords').where({ id: made.id }).first();
    expect(JSON.stringify(row)).not.toContain(made.password);
    const basic = (password: string) =>
      fetch(`${server.baseUrl}/dav/`, {
        method: 'PROPFIND',
        headers: { depth: '0', authorization: `Basic ${Buffer.from(`${ada.email}:${password}`).toString('base64')}` },
      });
    expect((await basic(made.password)).status).toBe(207);
    expect((await basic('abcd-efgh-jkmn-pqrs')).status).toBe(401);
  });
});
