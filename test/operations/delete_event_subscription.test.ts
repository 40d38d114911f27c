import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { REACH_LOCAL_SERVERS } from '../support/net.js';

describe('delete_event_subscription', () => {
  const { server } = useTestServer({ env: REACH_LOCAL_SERVERS, accounts: [] });

  it("removes one of the caller's subscriptions by query id", async () => {
    const ada = await server.account('Ada');
    const a = await ada.sdk.POST('/event-subscriptions', { body: { url: 'http://127.0.0.1:9/a' } });
    const b = await ada.sdk.POST('/event-subscriptions', { body: { url: 'http://127.0.0.1:9/b' } });
    const res = await ada.sdk.DELETE('/event-subscriptions', { params: { query: { id: a.data!.id } } });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ deleted: true, id: a.data!.id });
    expect((await ada.sdk.GET('/event-subscriptions')).data!.subscriptions.map((s) => s.id)).toEqual([b.data!.id]);
    expect((await ada.sdk.DELETE('/event-subscriptions', { params: { query: { id: a.data!.id } } })).response.status).toBe(404);
  });

  it("answers 404 for another person's subscription and leaves it", async () => {
    const [ada, eve] = [await server.account('Ada'), await server.account('Eve')];
    const a = await ada.sdk.POST('/event-subscriptions', { body: { url: 'http://127.0.0.1:9/a' } });
    const res = await eve.sdk.DELETE('/event-subscriptions', { params: { query: { id: a.data!.id } } });
    expect(res.response.status).toBe(404);
    expect(res.error).toMatchObject({ code: 'notFound' });
    expect((await ada.sdk.GET('/event-subscriptions')).data!.count).toBe(1);
  });

  it('refuses a missing or malformed id with 400', async () => {
    const ada = await server.account('Ada');
    const missing = await fetch(`${server.baseUrl}/api/v1/event-subscriptions`, { method: 'DELETE', headers: { Authorization: `Bearer ${ada.key}` } });
    expect(missing.status).toBe(400);
    const bad = await fetch(`${server.baseUrl}/api/v1/event-subscriptions?id=nope`, { method: 'DELETE', headers: { Authorization: `Bearer ${ada.key}` } });
    expect(bad.status).toBe(400);
  });
});
