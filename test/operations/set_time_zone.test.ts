import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { timeZoneOf } from '../../src/domain/accounts/accounts.js';

describe('set_time_zone', () => {
  const { server, ada } = useTestServer();

  it('saves an IANA zone, trimmed, and refuses one that is not', async () => {
    expect(await call(server.personContext(ada), 'set_time_zone', { timezone: ' America/New_York ' })).toEqual({ timezone: 'America/New_York' });
    expect(await timeZoneOf(server.db, ada.userId)).toBe('America/New_York');
    await expect(call(server.personContext(ada), 'set_time_zone', { timezone: 'Mars/Olympus' })).rejects.toMatchObject({
      status: 400,
      message: "'Mars/Olympus' is not a time zone; choose one such as Europe/London, or UTC.",
    });
    expect(await timeZoneOf(server.db, ada.userId)).toBe('America/New_York');
  });
});
