import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { verifyPassword } from '../../src/domain/accounts/passwords.js';
import { createSession } from '../../src/domain/accounts/sessions.js';

const PASSWORD = 'correct horse battery staple';

describe('change_password', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
  });
  const hash = async () => ((await server.db('users').where({ id: ada.userId }).first('password_hash')) as { password_hash: string }).password_hash;

  it('on the web: needs the present password, refuses a wrong one on `current` and a weak one on `password`', async () => {
    const web = server.personContext(ada);
    await expect(call(web, 'change_password', { password: 'a new long passphrase' })).rejects.toMatchObject({ status: 400, extra: { field: 'current' } });
    await expect(call(web, 'change_password', { current: 'not it at all', password: 'a new long passphrase' })).rejects.toMatchObject({
      message: 'Your current password is not the one you entered.',
      extra: { field: 'current' },
    });
    await expect(call(web, 'change_password', { current: PASSWORD, password: 'short' })).rejects.toMatchObject({
      message: 'Choose a password of at least 10 characters.',
      extra: { field: 'password' },
    });
    expect(await verifyPassword(await hash(), PASSWORD)).toBe(true);
  });

  it('changes it and ends every web session', async () => {
    await createSession(server.db, 'a browser of ada', ada.userId, new Date(Date.now() + 86400_000), null);
    expect(await call(server.personContext(ada), 'change_password', { current: PASSWORD, password: 'a new long passphrase' })).toEqual({ changed: true });
    expect(await verifyPassword(await hash(), 'a new long passphrase')).toBe(true);
    expect(await server.db('sessions').where({ user_id: ada.userId }).count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('from the command line: sets it without the present one', async () => {
    expect(await call(server.personContext(ada, 'cli'), 'change_password', { password: 'set by the operator' })).toEqual({ changed: true });
    expect(await verifyPassword(await hash(), 'set by the operator')).toBe(true);
  });
});
