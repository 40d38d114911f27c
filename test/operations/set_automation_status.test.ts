import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';

describe('set_automation_status', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });
  const make = () =>
    call(server.personContext(ada), 'create_automation', { definition: { name: 'Morning', schedule: '30 7 * * *', actions: [{ type: 'postDigest' }] } });

  it('pauses (no next run) and resumes (a next run from now), logging each', async () => {
    const { id } = await make();
    expect(await call(server.personContext(ada), 'set_automation_status', { id, status: 'paused' })).toMatchObject({ id, status: 'paused', nextRunAt: null });
    const resumed = await call(server.personContext(ada), 'set_automation_status', { id, status: 'active' });
    expect(resumed.status).toBe('active');
    expect(Date.parse(resumed.nextRunAt!)).toBeGreaterThan(Date.now());
    expect(
      await server.db('activity').where({ user_id: ada.userId }).whereIn('action', ['automation.paused', 'automation.resumed']).orderBy('id').pluck('summary'),
    ).toEqual(["Paused the automation 'Morning'", "Made the automation 'Morning' active"]);
  });

  it("refuses a status other than active or paused, and another person's automation", async () => {
    const { id } = await make();
    await expect(call(server.personContext(ada), 'set_automation_status', { id, status: 'draft' as never })).rejects.toMatchObject({ status: 400 });
    await expect(call(server.personContext(account('Bea')), 'set_automation_status', { id, status: 'paused' })).rejects.toMatchObject({ status: 404 });
  });
});
