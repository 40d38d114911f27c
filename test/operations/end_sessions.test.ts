import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { createSession } from '../../src/domain/accounts/sessions.js';

describe('end_sessions', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });

  it("ends every session of the person and no one else's; the API key keeps working", async () => {
    const day = new Date(Date.now() + 86400_000);
    await createSession(server.db, 'session of ada 1', ada.userId, day, null);
    await createSession(server.db, 'session of ada 2', ada.userId, day, null);
    await createSession(server.db, 'session of bea', account('Bea').userId, day, null);
    expect(await call(server.personContext(ada), 'end_sessions', {})).toEqual({ ended: 2 });
    expect(await server.db('sessions').pluck('user_id')).toEqual([account('Bea').userId]);
    expect((await fetch(`${server.baseUrl}/api/v1/lists`, { headers: { Authorization: `Bearer ${ada.key}` } })).status).toBe(200);
  });
});
