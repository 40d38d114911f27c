import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { get_context } from '../../src/operations/get_context.js';

describe('add_memory', () => {
  const { server, ada } = useTestServer();

  it('remembers a trimmed line that agents read, logged as the person', async () => {
    const added = await call(server.personContext(ada), 'add_memory', { text: '  Works from home on Fridays ' });
    expect(added).toEqual({ id: expect.any(String), text: 'Works from home on Fridays', createdAt: expect.any(String) });
    expect((await get_context(server.context(ada), {})).memory).toContain('Works from home on Fridays');
    const activity = await server.db('activity').where({ user_id: ada.userId, action: 'memory.added' }).select('summary', 'via_connection');
    expect(activity).toEqual([{ summary: "Remembered 'Works from home on Fridays'", via_connection: false }]);
  });

  it('refuses more than 500 characters, and blank text, naming the field', async () => {
    await expect(call(server.personContext(ada), 'add_memory', { text: 'x'.repeat(501) })).rejects.toMatchObject({ status: 400, extra: { field: 'text' } });
    await expect(call(server.personContext(ada), 'add_memory', { text: '   ' })).rejects.toThrow('A memory is 1 to 500 characters; received 0.');
  });

  it('counts a write from the command line as the person, not a connection', async () => {
    await call(server.personContext(ada, 'cli'), 'add_memory', { text: 'Partner is called Sam' });
    expect(await server.db('activity').where({ user_id: ada.userId, summary: "Remembered 'Partner is called Sam'" }).first('via_connection')).toEqual({
      via_connection: false,
    });
  });
});
