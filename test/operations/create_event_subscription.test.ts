import { describe, it, expect } from '@jest/globals';
import { startTestServer, useTestServer } from '../support/server.js';
import { MAX_SUBSCRIPTIONS, mintSecret } from '../../src/domain/changes/subscriptions.js';
import { create_event_subscription } from '../../src/operations/create_event_subscription.js';

describe('create_event_subscription', () => {
  // The production default: https only, public addresses only.
  const { server, ada } = useTestServer({});

  it('answers 201 with a pending subscription and a minted whsec_ secret shown once', async () => {
    const res = await ada.sdk.POST('/event-subscriptions', { body: { url: 'https://93.184.215.14/hooks' } });
    expect(res.response.status).toBe(201);
    expect(res.data).toEqual({
      id: expect.any(String),
      url: 'https://93.184.215.14/hooks',
      status: 'pending',
      events: ['task.awaitingAgent'],
      includeItem: false,
      via: 'rest',
      createdAt: expect.any(String),
      verifiedAt: null,
      refreshBefore: null,
      lastDeliveryAt: null,
      lastError: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(res.data!.secret!.slice(6), 'base64')).toHaveLength(32);
    // Its verification is queued in the same transaction, through the outbox.
    expect(await server.db('outbox').where({ topic: 'webhook.verify', subject_id: res.data!.id }).count('* as n').first()).toEqual({ n: 1 });
  });

  it("keeps the caller's own secret and never shows it back", async () => {
    const secret = mintSecret();
    const res = await ada.sdk.POST('/event-subscriptions', { body: { url: 'https://93.184.215.14/own', secret } });
    expect(res.response.status).toBe(201);
    expect(res.data).not.toHaveProperty('secret');
    expect((await server.db('event_subscriptions').where({ id: res.data!.id }).first()).secret).toBe(secret);
  });

  it.each([
    ['plain http', 'http://93.184.215.14/hooks', /url/],
    ['loopback by address', 'https://127.0.0.1/hooks', /is not allowed: it does not resolve to a public address/],
    ['loopback by name', 'https://localhost/hooks', /'localhost' is not allowed: it does not resolve to a public address/],
    ['a private range', 'https://10.1.2.3/hooks', /10\.1\.2\.3/],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest', /169\.254\.169\.254/],
    ['IPv6 loopback', 'https://[::1]/hooks', /::1/],
    ['IPv6 unique local', 'https://[fd00::1]/hooks', /fd00::1/],
    ['an IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hooks', /is not allowed/],
    ['credentials in the URL', 'https://user:pw@93.184.215.14/hooks', /user name or password/],
    ['a host that does not resolve', 'https://no-such-host.invalid/hooks', /does not resolve/],
  ])('refuses %s with 409 on url', async (_name, url, pattern) => {
    const res = await ada.sdk.POST('/event-subscriptions', { body: { url } });
    expect(res.response.status).toBe(409);
    expect(res.error).toMatchObject({ code: 'toolError', field: 'url' });
    expect((res.error as { error: string }).error).toMatch(pattern);
  });

  it.each([
    ['no whsec_ prefix', 'abc_'.padEnd(40, 'A'), 400],
    ['too few bytes', `whsec_${Buffer.alloc(16, 1).toString('base64')}`, 400],
    ['too many bytes', `whsec_${Buffer.alloc(65, 1).toString('base64')}`, 400],
    ['not base64', 'whsec_not*base64*at*all*here*!!', 400],
  ])('refuses an own secret with %s', async (_name, secret, status) => {
    const res = await ada.sdk.POST('/event-subscriptions', { body: { url: 'https://93.184.215.14/h', secret } });
    expect(res.response.status).toBe(status);
  });

  it('allows http on 127.0.0.1 only with OUTBOUND_ALLOW_PRIVATE=true', async () => {
    const dev = await startTestServer({ OUTBOUND_ALLOW_PRIVATE: 'true' });
    try {
      const bea = await dev.account('Bea');
      const res = await bea.sdk.POST('/event-subscriptions', { body: { url: 'http://127.0.0.1:9/hooks' } });
      expect(res.response.status).toBe(201);
      expect((await bea.sdk.POST('/event-subscriptions', { body: { url: 'ftp://127.0.0.1/hooks' } })).response.status).toBe(400);
    } finally {
      await dev.close();
    }
  });

  it(`refuses a subscription past ${MAX_SUBSCRIPTIONS} with 409`, async () => {
    const cy = await server.account('Cy');
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) await create_event_subscription(server.context(cy), { url: `https://93.184.215.14/${i}` });
    const res = await cy.sdk.POST('/event-subscriptions', { body: { url: 'https://93.184.215.14/one-more' } });
    expect(res.response.status).toBe(409);
    expect(res.error).toMatchObject({ code: 'toolError' });
  });
});
