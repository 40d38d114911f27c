/**
 * `lk.webhooks.verify`: a delivery signed with the subscription's secret comes back typed; a
 * changed body, another secret or an old timestamp throws WebhookVerificationError.
 */
import { describe, it, expect } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { createClient, verifyWebhook, WebhookVerificationError } from '../../sdk/src/index.js';

const secret = `whsec_${Buffer.from('a secret of thirty-two bytes....').toString('base64')}`;
const lk = createClient({ baseUrl: 'http://127.0.0.1:1', token: 'unused' });

function signed(body: string, at = new Date()): Record<string, string> {
  const id = 'msg_1';
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, at, body) };
}

describe('webhook verification on the client', () => {
  const body = JSON.stringify({ type: 'item.created', name: 'item.created', data: { itemId: 'x' } });

  it('returns the payload of a delivery signed with the secret', () => {
    const event = lk.webhooks.verify(body, signed(body), secret);
    expect(event).toEqual(JSON.parse(body));
    expect(lk.webhooks.verify).toBe(verifyWebhook);
    expect(lk.webhooks.isVerification(event)).toBe(false);
    expect(
      lk.webhooks.isVerification(lk.webhooks.verify('{"type":"verification","challenge":"c"}', signed('{"type":"verification","challenge":"c"}'), secret)),
    ).toBe(true);
  });

  it('throws for a changed body, another secret, or a delivery older than five minutes', () => {
    const headers = signed(body);
    expect(() => lk.webhooks.verify(body.replace('x', 'y'), headers, secret)).toThrow(WebhookVerificationError);
    expect(() => lk.webhooks.verify(body, headers, `whsec_${Buffer.from('another secret of 32 bytes......').toString('base64')}`)).toThrow(
      WebhookVerificationError,
    );
    expect(() => lk.webhooks.verify(body, signed(body, new Date(Date.now() - 6 * 60_000)), secret)).toThrow(WebhookVerificationError);
  });
});
