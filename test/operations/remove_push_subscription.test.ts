import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { pushSubscriptions } from '../../src/domain/notifications/settings.js';

describe('remove_push_subscription', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });

  it('forgets one of the person’s browsers, and no one else’s', async () => {
    const { id } = await call(server.personContext(ada), 'add_push_subscription', { endpoint: 'https://1.1.1.1/a', keys: { p256dh: 'k', auth: 'a' } });
    expect(await call(server.personContext(account('Bea')), 'remove_push_subscription', { id })).toEqual({ removed: false });
    expect(await pushSubscriptions(server.db, ada.userId)).toHaveLength(1);
    expect(await call(server.personContext(ada), 'remove_push_subscription', { id })).toEqual({ removed: true });
    expect(await pushSubscriptions(server.db, ada.userId)).toEqual([]);
  });
});
