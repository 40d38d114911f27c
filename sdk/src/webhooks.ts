/**
 * Receiving webhooks: `verifyWebhook(body, headers, secret)` checks the Standard Webhooks
 * signature (standardwebhooks library: HMAC over id, timestamp and body; a timestamp more
 * than five minutes off is refused) and returns the typed event, or throws.
 */
import { Webhook } from 'standardwebhooks';
import type { components } from './generated/api.js';

/** An event delivery (the `webhooks` section of the OpenAPI document); `type` tells which. */
export type WebhookEvent =
  | components['schemas']['EventOccurrence']
  | components['schemas']['ReminderEvent']
  | components['schemas']['ItemEvent']
  | components['schemas']['ListEvent']
  | components['schemas']['ChatReplyEvent'];
/** The challenge sent once before the first event. */
export type WebhookVerification = components['schemas']['WebhookVerification'];

/** The delivery's signature or timestamp did not check out; do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/**
 * Verifies a delivery and returns its payload. `body` is the raw request body (verify before
 * parsing: re-serialised JSON would not match the signature); `headers` the request's headers;
 * `secret` the subscription's `whsec_…` secret.
 */
export function verifyWebhook(
  body: string,
  headers: Headers | Record<string, string | string[] | undefined>,
  secret: string,
): WebhookEvent | WebhookVerification {
  const plain: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, name) => (plain[name] = value));
  else
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  try {
    return new Webhook(secret).verify(body, plain) as WebhookEvent | WebhookVerification;
  } catch (err) {
    // standardwebhooks' own error type names Node's Buffer in its declarations: browsers' type checks would fail on it.
    throw new WebhookVerificationError(err instanceof Error ? err.message : String(err));
  }
}

/** True for the challenge, false for an event. */
export function isVerification(payload: WebhookEvent | WebhookVerification): payload is WebhookVerification {
  return (payload as WebhookVerification).type === 'verification';
}
