/**
 * Notifications to the person. The outbox consumer of notices (written with the reminder's
 * claim or the agent's question, src/domain/changes/notices.ts) makes one delivery per channel
 * the person has on and queues each as a job in the transaction that claims it (as webhook
 * deliveries are queued), after quiet hours when they hold; the job sends it
 * (src/jobs/notify-channels.ts). pg-boss runs a job once across processes and retries a
 * failing channel with backoff; a channel that is gone is dropped with a note in Settings.
 * @see docs/notifications.md
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../core/config.js';
import type { Jobs, JobDefinition } from './queue.js';
import type { OutboxConsumer } from './outbox.js';
import { NOTICE_TOPIC, type Notice } from '../domain/changes/notices.js';
import { itemUrls } from '../domain/items/urls.js';
import { claimForQueue, finishDelivery, noteFailure, noteQueued, planDeliveries, startAttempt, type DeliveryRow } from '../domain/notifications/deliveries.js';
import { notificationKeys } from '../domain/notifications/keys.js';
import { dropChannel, pushSubscriptions } from '../domain/notifications/settings.js';
import { sendEmail, sendPush, sendTopic, type ChannelDeps, type Outcome } from './notify-channels.js';

export const NOTIFY_JOB = 'notification.deliver';
/** Attempts of one delivery in all: the first and four retries. */
export const NOTIFY_ATTEMPTS = 5;

export interface NotifyDeps {
  db: Knex;
  log: Logger;
  now(): Date;
  config: Config;
}

/** pg-boss options of a delivery job: retries with backoff from WEBHOOK_RETRY_BASE_SECONDS, as webhooks. */
function jobOptions(config: Config) {
  return {
    retryLimit: NOTIFY_ATTEMPTS - 1,
    retryDelay: config.webhookRetryBaseSeconds,
    retryBackoff: true,
    expireInSeconds: Math.max(5, Math.ceil((config.webhookTimeoutMs * 3) / 1000)),
  };
}

/** The outbox consumer of notices: the deliveries made and queued. */
export function noticeConsumer(deps: NotifyDeps & { jobs: Jobs }): Record<string, OutboxConsumer> {
  const urlOf = (id: string) => itemUrls(deps.config, id).webUrl;
  return {
    async [NOTICE_TOPIC](rows) {
      for (const row of rows) {
        const planned = await planDeliveries(deps.db, row.payload as unknown as Notice, deps.now(), urlOf);
        for (const delivery of planned) {
          // The claim and the job commit together: a process that dies between them leaves the delivery for the next.
          await deps.db.transaction(async (trx) => {
            if (!(await claimForQueue(trx, delivery.id))) return;
            const options = { ...jobOptions(deps.config), ...(delivery.notBefore ? { startAfter: delivery.notBefore } : {}) };
            await noteQueued(trx, delivery.id, await deps.jobs.sendInTransaction(trx, NOTIFY_JOB, { deliveryId: delivery.id }, options));
          });
        }
      }
    },
  };
}

/** The delivery job of the job list (src/jobs/definitions.ts). */
export function notificationJob(deps: NotifyDeps): JobDefinition<{ deliveryId: string }> {
  return {
    name: NOTIFY_JOB,
    queue: jobOptions(deps.config),
    async handler(data, job) {
      await deliver(deps, data.deliveryId, job.retryCount);
    },
  };
}

/** One attempt at one delivery; throws to have pg-boss retry it. */
export async function deliver(deps: NotifyDeps, deliveryId: string, retryCount: number): Promise<void> {
  const delivery = await startAttempt(deps.db, deliveryId);
  if (!delivery) return;
  const now = deps.now();
  const outcome = await send(deps, delivery, now);
  if (outcome.kind === 'sent') return finishDelivery(deps.db, delivery.id, 'sent', now);
  if (outcome.kind === 'gone') {
    await dropChannel(deps.db, delivery.user_id, delivery.channel, delivery.target, outcome.note);
    deps.log.info({ delivery: delivery.id, channel: delivery.channel }, 'notification channel is gone: dropped');
    return finishDelivery(deps.db, delivery.id, 'dropped', now, outcome.error);
  }
  if (outcome.kind === 'failed' || retryCount >= NOTIFY_ATTEMPTS - 1) return finishDelivery(deps.db, delivery.id, 'failed', now, outcome.error);
  await noteFailure(deps.db, delivery.id, outcome.error);
  throw new Error(`notification ${delivery.id} by ${delivery.channel}: ${outcome.error}`);
}

async function send(deps: NotifyDeps, delivery: DeliveryRow, now: Date): Promise<Outcome> {
  const channel: ChannelDeps = { config: deps.config, keys: notificationKeys(deps.config.dataDir) };
  if (delivery.channel === 'email') return sendEmail(channel, { id: delivery.id, userId: delivery.user_id, address: delivery.target }, delivery.message, now);
  if (delivery.channel === 'topic') return sendTopic(channel, delivery.target, delivery.message, now);
  const browser = (await pushSubscriptions(deps.db, delivery.user_id)).find((b) => b.id === delivery.target);
  // The person turned push off in that browser since: nothing to send to.
  if (!browser) return { kind: 'failed', error: 'the browser no longer takes pushes' };
  return sendPush(channel, browser, delivery.message, now);
}
