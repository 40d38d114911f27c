import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { list_automations } from '../../src/operations/list_automations.js';

describe('create_automation', () => {
  const { server, ada } = useTestServer();

  it('creates an automation from its definition, with its next run in the person’s zone, and logs it', async () => {
    const made = await call(server.personContext(ada), 'create_automation', {
      definition: { name: 'Weekly review', schedule: '0 9 * * 1', actions: [{ type: 'postDigest', daysAhead: 7 }] },
    });
    expect(made).toMatchObject({ name: 'Weekly review', status: 'active', schedule: '0 9 * * 1', timezone: 'Europe/London', lastRun: null });
    expect(made.nextRunAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
    expect((await list_automations(server.context(ada), {})).automations.map((a) => a.id)).toEqual([made.id]);
    const activity = await server.db('activity').where({ user_id: ada.userId, action: 'automation.created' }).select('summary', 'via_connection');
    expect(activity).toEqual([{ summary: "Created the automation 'Weekly review' (active)", via_connection: false }]);
  });

  it('refuses a bad definition with the sentence naming its first problem, and writes nothing', async () => {
    const before = await server.db('activity').where({ user_id: ada.userId }).count({ n: '*' });
    await expect(
      call(server.personContext(ada), 'create_automation', { definition: { name: 'Bad', schedule: 'daily', actions: [{ type: 'postDigest' }] } }),
    ).rejects.toThrow("schedule 'daily' must have five fields");
    await expect(call(server.personContext(ada), 'create_automation', { definition: [] as never })).rejects.toMatchObject({ status: 400 });
    expect(await server.db('activity').where({ user_id: ada.userId }).count({ n: '*' })).toEqual(before);
  });
});
