import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { pushSubscriptions, readSettings } from '../../src/domain/notifications/settings.js';

describe('add_push_subscription', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });
  const subscription = { endpoint: 'https://1.1.1.1/send/abc', keys: { p256dh: 'BPublicKey', auth: 'secret' }, browser: 'Firefox on Linux' };

  it('keeps the browser and turns push on; the same browser again is one browser, now the latest account’s', async () => {
    const { id } = await call(server.personContext(ada), 'add_push_subscription', subscription);
    expect((await readSettings(server.db, ada.userId)).pushOn).toBe(true);
    expect(await pushSubscriptions(server.db, ada.userId)).toEqual([
      expect.objectContaining({ id, endpoint: subscription.endpoint, browser: 'Firefox on Linux' }),
    ]);
    const again = await call(server.personContext(account('Bea')), 'add_push_subscription', subscription);
    expect(again.id).toBe(id);
    expect(await pushSubscriptions(server.db, ada.userId)).toEqual([]);
  });

  it('refuses an endpoint that is not https', async () => {
    await expect(call(server.personContext(ada), 'add_push_subscription', { ...subscription, endpoint: 'http://1.1.1.1/x' })).rejects.toMatchObject({
      status: 400,
      extra: { field: 'endpoint' },
    });
  });
});
