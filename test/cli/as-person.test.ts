/**
 * The admin commands that name an account act as that person through the person's operations
 * (src/cli/as-person.ts): a write is logged as the person's, and refused with the sentence the
 * operation gives, as on the web pages.
 */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { runCli } from '../support/cli.js';
import { call } from '../../src/operations/dispatch.js';
import { verifyPassword } from '../../src/domain/accounts/passwords.js';

describe('listkeeper admin commands for one account', () => {
  const { server, ada } = useTestServer();

  const cli = (args: string[], input = '') => runCli(server.dbUrl, args, input);

  it("memory add is add_memory as the person: logged as theirs, refused with the operation's sentence", async () => {
    expect((await cli(['memory', 'add', '--email', ada.email, 'Likes tea'])).code).toBe(0);
    expect(await server.db('activity').where({ user_id: ada.userId, action: 'memory.added' }).select('summary', 'via_connection')).toEqual([
      { summary: "Remembered 'Likes tea'", via_connection: false },
    ]);
    const long = 'x'.repeat(501);
    const sentence = await call(server.personContext(ada, 'cli'), 'add_memory', { text: long }).then(
      () => 'accepted',
      (err: Error) => err.message,
    );
    expect(sentence).toMatch(/'text' must NOT have more than 500 characters/);
    const refused = await cli(['memory', 'add', '--email', ada.email, long]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`listkeeper: ${sentence}\n`);
  });

  it('user set-password sets it through change_password, which refuses a weak one', async () => {
    const weak = await cli(['user', 'set-password', '--email', ada.email], 'short\n');
    expect(weak.stderr).toBe('listkeeper: Choose a password of at least 10 characters.\n');
    const set = await cli(['user', 'set-password', '--email', ada.email], 'set from the command line\n');
    expect(set.stdout).toBe(`Password set for ${ada.email}; its other web sessions were signed out.\n`);
    const { password_hash } = (await server.db('users').where({ id: ada.userId }).first('password_hash')) as { password_hash: string };
    expect(await verifyPassword(password_hash, 'set from the command line')).toBe(true);
  });
});
