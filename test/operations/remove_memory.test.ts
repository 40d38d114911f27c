import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { get_context } from '../../src/operations/get_context.js';

describe('remove_memory', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });

  it('forgets one line of the person and logs it', async () => {
    const { id } = await call(server.personContext(ada), 'add_memory', { text: 'Prefers mornings' });
    expect(await call(server.personContext(ada), 'remove_memory', { id })).toMatchObject({ id, text: 'Prefers mornings' });
    expect((await get_context(server.context(ada), {})).memory).toEqual([]);
    expect(await server.db('activity').where({ user_id: ada.userId, action: 'memory.removed' }).pluck('summary')).toEqual(["Forgot 'Prefers mornings'"]);
  });

  it("answers 404 for a line that is gone or another person's, and leaves theirs", async () => {
    const { id } = await call(server.personContext(account('Bea')), 'add_memory', { text: 'Bea only' });
    await expect(call(server.personContext(ada), 'remove_memory', { id })).rejects.toMatchObject({ status: 404 });
    expect((await get_context(server.context(account('Bea')), {})).memory).toEqual(['Bea only']);
  });
});
