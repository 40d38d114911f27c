/**
 * Sending one notification by one channel, and what came of it: sent, to be retried (the
 * channel failed for now), failed for good, or gone (the channel no longer exists: the
 * browser's subscription expired, the mail server refuses the address, the topic is gone).
 * Web Push is encrypted and VAPID-signed by the `web-push` library and, as the topic's POST,
 * sent through the outbound guard (the person gives those addresses); mail goes through
 * nodemailer to the SMTP_URL server.
 * @see docs/notifications.md
 */
import { createHash } from 'node:crypto';
import webpush from 'web-push';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../core/config.js';
import { OutboundError, outboundRequest } from '../core/outbound.js';
import type { NotificationKeys } from '../domain/notifications/keys.js';
import { unsubscribeToken } from '../domain/notifications/keys.js';
import type { NotificationMessage } from '../domain/notifications/messages.js';
import type { PushSubscription } from '../domain/notifications/settings.js';

export type Outcome = { kind: 'sent' } | { kind: 'retry'; error: string } | { kind: 'failed'; error: string } | { kind: 'gone'; error: string; note: string };

export interface ChannelDeps {
  config: Pick<Config, 'baseUrl' | 'outboundAllowPrivate' | 'webhookTimeoutMs' | 'smtp'>;
  keys: NotificationKeys;
}

/** Where unsubscribe links and one-click unsubscribes go. */
export const UNSUBSCRIBE_PATH = '/notifications/unsubscribe';
const PUSH_TTL_SECONDS = 24 * 3600;
const ANSWER_LIMIT = 64 * 1024;

/** An answer's status as an outcome: 2xx sent, 404/410 gone, 408/429/5xx retried, other 4xx failed. */
function byStatus(status: number, what: string, gone: string): Outcome {
  if (status >= 200 && status < 300) return { kind: 'sent' };
  const error = `${what} answered ${status}`;
  if (status === 404 || status === 410) return { kind: 'gone', error, note: gone };
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', error };
  return { kind: 'failed', error };
}

function stamp(at: Date): string {
  return at.toISOString().slice(0, 16).replace('T', ' ');
}

/** The VAPID subject: the service's https address, else a mailto: of its sender. */
function vapidSubject(deps: ChannelDeps): string {
  if (deps.config.baseUrl.startsWith('https:')) return deps.config.baseUrl;
  const from = deps.config.smtp?.from ?? '';
  const address = /<([^>]+)>/.exec(from)?.[1] ?? (from.includes('@') ? from : `listkeeper@${new URL(deps.config.baseUrl).hostname}`);
  return `mailto:${address}`;
}

/** One Web Push message to one browser (RFC 8291 encryption, RFC 8292 VAPID), through the outbound guard. */
export async function sendPush(deps: ChannelDeps, browser: PushSubscription, message: NotificationMessage, now: Date): Promise<Outcome> {
  const payload = JSON.stringify({ title: message.title, body: message.body, url: message.url, tag: message.tag });
  const request = webpush.generateRequestDetails({ endpoint: browser.endpoint, keys: { p256dh: browser.p256dh, auth: browser.auth } }, payload, {
    vapidDetails: { subject: vapidSubject(deps), publicKey: deps.keys.vapidPublicKey, privateKey: deps.keys.vapidPrivateKey },
    TTL: PUSH_TTL_SECONDS,
    urgency: message.kind === 'question' ? 'high' : 'normal',
    // A later message of the same item and kind replaces one the push service still holds.
    topic: createHash('sha256').update(message.tag).digest('base64url').slice(0, 32),
  });
  try {
    const answer = await outboundRequest(request.endpoint, {
      method: 'POST',
      headers: request.headers as Record<string, string>,
      body: request.body ?? Buffer.alloc(0),
      maxBytes: ANSWER_LIMIT,
      timeoutMs: deps.config.webhookTimeoutMs,
      allowPrivate: deps.config.outboundAllowPrivate,
    });
    return byStatus(
      answer.status,
      'the push service',
      `A browser's push subscription (${browser.browser ?? 'a browser'}) expired on ${stamp(now)} UTC and was removed; turn push on again in that browser.`,
    );
  } catch (err) {
    return outboundFailure(err);
  }
}

/** A refused address is a failure for good; a network failure is retried. */
function outboundFailure(err: unknown): Outcome {
  const error = err instanceof Error ? err.message : String(err);
  return /not allowed|only https|private, loopback|not an absolute URL/.test(error) ? { kind: 'failed', error } : { kind: 'retry', error };
}

/** ntfy-style: the message as the body of a POST to the person's topic URL, its title and link in headers. */
export async function sendTopic(deps: ChannelDeps, url: string, message: NotificationMessage, now: Date): Promise<Outcome> {
  try {
    const answer = await outboundRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        title: headerText(message.title),
        click: message.url,
        tags: message.kind === 'question' ? 'question' : 'bell',
      },
      body: message.body,
      maxBytes: ANSWER_LIMIT,
      timeoutMs: deps.config.webhookTimeoutMs,
      allowPrivate: deps.config.outboundAllowPrivate,
    });
    return byStatus(answer.status, 'the topic', `The topic ${url} answered that it is gone on ${stamp(now)} UTC; notifications to it were turned off.`);
  } catch (err) {
    if (err instanceof OutboundError) return outboundFailure(err);
    throw err;
  }
}

/** A header value: ASCII as it is, anything else as an RFC 2047 encoded word (ntfy reads those). */
function headerText(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text).toString('base64')}?=`;
}

const transports = new Map<string, Transporter>();

function transport(url: string): Transporter {
  let made = transports.get(url);
  if (!made) transports.set(url, (made = nodemailer.createTransport(url)));
  return made;
}

/**
 * One email: a plain text part with the item's link, and a one-click way to stop this kind of
 * mail (RFC 8058: List-Unsubscribe with List-Unsubscribe-Post, and the same link in the text).
 * The server refusing the address for good (a 5xx to the recipient) means it is gone.
 */
export async function sendEmail(
  deps: ChannelDeps,
  delivery: { id: string; userId: string; address: string },
  message: NotificationMessage,
  now: Date,
): Promise<Outcome> {
  const smtp = deps.config.smtp;
  if (!smtp) return { kind: 'failed', error: 'SMTP_URL is not set: the service sends no email.' };
  const stop = `${deps.config.baseUrl}${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(unsubscribeToken(deps.keys, delivery.userId, message.kind))}`;
  const what = message.kind === 'question' ? 'questions from your agents' : 'task reminders';
  try {
    await transport(smtp.url).sendMail({
      from: smtp.from,
      to: delivery.address,
      subject: message.title,
      messageId: `<${delivery.id}@${new URL(deps.config.baseUrl).hostname}>`,
      headers: { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click', 'Auto-Submitted': 'auto-generated' },
      list: { unsubscribe: { url: stop, comment: `Stop emails about ${what}` } },
      text: `${message.body}\n\nOpen it: ${message.url}\n\n-- \nYou get this because email notifications are on in listkeeper (Settings > Notifications).\nStop emails about ${what}: ${stop}\n`,
    });
    return { kind: 'sent' };
  } catch (err) {
    const failure = err as { responseCode?: number; code?: string; message?: string };
    const error = failure.message ?? String(err);
    if (failure.code === 'EENVELOPE' && (failure.responseCode ?? 0) >= 500)
      return {
        kind: 'gone',
        error,
        note: `Mail to ${delivery.address} was refused for good on ${stamp(now)} UTC (${error}); email notifications were turned off.`,
      };
    if ((failure.responseCode ?? 0) >= 500) return { kind: 'failed', error };
    return { kind: 'retry', error };
  }
}
