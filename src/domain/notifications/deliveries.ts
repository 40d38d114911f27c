/**
 * Deliveries of notices: one row per notice and channel target (a browser, an address, a
 * topic), made once however often the notice's outbox row is handled (unique), then queued as
 * a job (src/jobs/notifications.ts) and finished as sent, failed (after the last retry) or
 * dropped (the channel is gone). Quiet hours in the person's zone set the earliest time a
 * delivery may go.
 * @see docs/notifications.md
 */
import type { Knex } from 'knex';
import type { Notice } from '../changes/notices.js';
import { getUser } from '../accounts/accounts.js';
import { messageOf, type NotificationMessage } from './messages.js';
import { pushSubscriptions, quietUntil, readSettings, type Channel } from './settings.js';

export type DeliveryStatus = 'pending' | 'sent' | 'failed' | 'dropped';

export interface DeliveryRow {
  id: string;
  notice_id: string;
  user_id: string;
  channel: Channel;
  /** The push subscription's id, the email address, or the topic URL. */
  target: string;
  message: NotificationMessage;
  status: DeliveryStatus;
  attempts: number;
  job_id: string | null;
  not_before: Date | null;
}

/**
 * The deliveries of a notice by the channels the person has on, made if they are not yet;
 * returns those waiting to be queued, with the earliest time each may go.
 */
export async function planDeliveries(
  db: Knex,
  notice: Notice,
  now: Date,
  urlOf: (itemId: string) => string,
): Promise<{ id: string; notBefore: Date | null }[]> {
  const settings = await readSettings(db, notice.userId);
  const user = await getUser(db, notice.userId).catch(() => null);
  if (!user) return [];
  const targets: [Channel, string][] = [];
  if (settings.pushOn) for (const browser of await pushSubscriptions(db, notice.userId)) targets.push(['push', browser.id]);
  if (settings.emailOn && settings.emailKinds[notice.kind]) targets.push(['email', settings.emailAddress ?? user.email]);
  if (settings.topicOn && settings.topicUrl) targets.push(['topic', settings.topicUrl]);
  if (targets.length) {
    const message = JSON.stringify(messageOf(notice, urlOf(notice.itemId), user.timezone));
    const notBefore = quietUntil(settings, user.timezone, now);
    await db('notification_deliveries')
      .insert(targets.map(([channel, target]) => ({ notice_id: notice.noticeId, user_id: notice.userId, channel, target, message, not_before: notBefore })))
      .onConflict(['notice_id', 'channel', 'target'])
      .ignore();
  }
  const waiting = (await db('notification_deliveries')
    .where({ notice_id: notice.noticeId, status: 'pending' })
    .whereNull('job_id')
    .select('id', 'not_before')) as { id: string; not_before: Date | null }[];
  return waiting.map((d) => ({ id: d.id, notBefore: d.not_before }));
}

/** Claims a delivery for queuing in the caller's transaction; false when another process has it. */
export async function claimForQueue(trx: Knex, id: string): Promise<boolean> {
  return (await trx('notification_deliveries').where({ id }).whereNull('job_id').update({ job_id: 'queuing' })) > 0;
}

export async function noteQueued(trx: Knex, id: string, jobId: string | null): Promise<void> {
  await trx('notification_deliveries')
    .where({ id })
    .update({ job_id: jobId ?? 'sent' });
}

/** A delivery still to be sent, counting this attempt; undefined when it is done. */
export async function startAttempt(db: Knex, id: string): Promise<DeliveryRow | undefined> {
  const [row] = (await db('notification_deliveries').where({ id, status: 'pending' }).increment('attempts', 1).returning('*')) as DeliveryRow[];
  return row;
}

/** Ends a delivery: sent, failed for good, or dropped because its channel is gone. */
export async function finishDelivery(db: Knex, id: string, status: Exclude<DeliveryStatus, 'pending'>, now: Date, error: string | null = null): Promise<void> {
  await db('notification_deliveries').where({ id, status: 'pending' }).update({ status, finished_at: now, last_error: error });
}

/** Notes why an attempt failed (it is retried). */
export async function noteFailure(db: Knex, id: string, error: string): Promise<void> {
  await db('notification_deliveries')
    .where({ id })
    .update({ last_error: error.slice(0, 500) });
}

/** The person's deliveries, newest first (Settings shows the recent ones). */
export async function recentDeliveries(
  db: Knex,
  userId: string,
  limit = 10,
): Promise<(DeliveryRow & { created_at: Date; finished_at: Date | null; last_error: string | null })[]> {
  return (await db('notification_deliveries').where({ user_id: userId }).orderBy('created_at', 'desc').limit(limit)) as (DeliveryRow & {
    created_at: Date;
    finished_at: Date | null;
    last_error: string | null;
  })[];
}
