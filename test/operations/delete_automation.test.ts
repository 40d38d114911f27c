import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { list_automations } from '../../src/operations/list_automations.js';

describe('delete_automation', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });

  it('deletes an automation and logs it; another person cannot', async () => {
    const { id } = await call(server.personContext(ada), 'create_automation', { definition: { name: 'Tidy', actions: [{ type: 'postDigest' }] } });
    await expect(call(server.personContext(account('Bea')), 'delete_automation', { id })).rejects.toMatchObject({ status: 404 });
    expect(await call(server.personContext(ada), 'delete_automation', { id })).toEqual({ deleted: true, id, name: 'Tidy' });
    expect((await list_automations(server.context(ada), {})).count).toBe(0);
    expect(await server.db('activity').where({ user_id: ada.userId, action: 'automation.deleted' }).pluck('summary')).toEqual([
      "Deleted the automation 'Tidy'",
    ]);
    await expect(call(server.personContext(ada), 'delete_automation', { id })).rejects.toMatchObject({ status: 404 });
  });
});
