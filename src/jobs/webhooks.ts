/**
 * Webhook delivery. The outbox consumers fan an event out to the subscriptions that chose its
 * type, of its audience (a change event's owner) or of everyone who can reach its task (one
 * delivery row each), and queue each delivery on the durable job queue; the job signs and
 * POSTs it per Standard Webhooks. The deliveries of one subject (item, list, task) to one
 * subscription go out one at a time in the order of their events: a later one is queued when
 * the one before it is done (delivered, failed for good or discarded). A pending subscription
 * first gets the verification challenge. Failures are retried by pg-boss with exponential
 * backoff and jitter (5 attempts in all); a 410 answer retires the subscription.
 * @see docs/events.md
 */
import http from 'node:http';
import https from 'node:https';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { Jobs, JobDefinition } from './queue.js';
import type { OutboxConsumer } from './outbox.js';
import { EVENT_TOPIC, type EventOccurrence } from '../domain/changes/events.js';
import { itemSnapshot } from '../domain/items/items.js';
import { VERIFY_TOPIC, type SubscriptionRow } from '../domain/changes/subscriptions.js';
import { readersOf } from '../domain/lists/shares.js';
import { reachOfCredential } from '../domain/accounts/grants.js';
import { literalHostBlocked } from '../core/outbound.js';
import { webhookFailures } from '../core/metrics.js';
import { guardedLookup } from '../core/outbound.js';

export const WEBHOOK_JOB = 'webhook.deliver';
/** Attempts of one delivery in all: the first and four retries. */
export const WEBHOOK_ATTEMPTS = 5;
const RESPONSE_LIMIT_BYTES = 64 * 1024;

export interface WebhookSettings {
  allowPrivate: boolean;
  retryBaseSeconds: number;
  timeoutMs: number;
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  subject_id: string | null;
  message_id: string;
  kind: 'event' | 'verification';
  payload: Record<string, unknown>;
  status: 'pending' | 'delivered' | 'failed' | 'discarded';
  attempts: number;
  job_id: string | null;
}

/** pg-boss options of a delivery job: the retry schedule lives here, per job. */
export function deliveryJobOptions(settings: Pick<WebhookSettings, 'retryBaseSeconds' | 'timeoutMs'>) {
  return {
    retryLimit: WEBHOOK_ATTEMPTS - 1,
    // pg-boss backoff: the n-th retry waits base·2^(n-1)·(1 + random) seconds: 10–20 s, 20–40 s, 40–80 s, 80–160 s.
    retryDelay: settings.retryBaseSeconds,
    retryBackoff: true,
    // An attempt is bounded by the request timeout; three of them leave room to spare. A process
    // that dies mid-attempt leaves the job active until then (and the next maintenance pass).
    expireInSeconds: Math.max(5, Math.ceil((settings.timeoutMs * 3) / 1000)),
  };
}

/** The outbox consumers that turn events and new subscriptions into queued deliveries. */
export function webhookConsumers(deps: { db: Knex; jobs: Jobs; settings: WebhookSettings; log: Logger }): Record<string, OutboxConsumer> {
  const { db } = deps;
  const queue = (deliveryIds: string[]) => queueDeliveries(db, deps.jobs, deps.settings, deliveryIds);
  return {
    async [EVENT_TOPIC](rows) {
      for (const row of rows) {
        const { audience, ...occurrence } = row.payload as unknown as EventOccurrence & { audience?: string[] };
        const type = occurrence.type ?? occurrence.name;
        const readers = audience ?? (await readersOf(db, [row.subject_id])).get(row.subject_id) ?? [];
        const subscribed = readers.length
          ? ((await db('event_subscriptions')
              .whereIn('user_id', readers)
              .whereIn('status', ['pending', 'active'])
              .whereRaw('? = ANY(events)', [type])
              .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()))
              .select('id', 'user_id', 'credential', 'include_item')) as Subscribed[])
          : [];
        const subscriptions = await withinReach(db, subscribed, occurrence.data, row.subject_id);
        if (subscriptions.length) {
          const wantsItem = type.startsWith('item.') && subscriptions.some((s) => s.include_item);
          const item = wantsItem ? await itemSnapshot(db, row.subject_id) : null;
          const withItem = item ? { ...occurrence, data: { ...occurrence.data, item } } : occurrence;
          await db('webhook_deliveries')
            .insert(
              subscriptions.map((s) => ({
                subscription_id: s.id,
                subject_id: row.subject_id,
                message_id: occurrence.eventId,
                kind: 'event',
                payload: JSON.stringify(s.include_item ? withItem : occurrence),
              })),
            )
            .onConflict(['subscription_id', 'message_id'])
            .ignore();
        }
        // Queue what is not queued yet (a consumer retried after a crash queues each delivery once),
        // unless an earlier delivery of the same subject to the same subscription is still pending.
        const ids = (await db('webhook_deliveries as d')
          .where({ 'd.message_id': occurrence.eventId, 'd.status': 'pending' })
          .whereNull('d.job_id')
          .whereNotExists(function earlier() {
            this.from('webhook_deliveries as e')
              .whereRaw('e.subscription_id = d.subscription_id AND e.subject_id = d.subject_id AND e.seq < d.seq')
              .where('e.status', 'pending');
          })
          .pluck('d.id')) as string[];
        await queue(ids);
      }
    },
    async [VERIFY_TOPIC](rows) {
      for (const row of rows) {
        const sub = (await db('event_subscriptions').where({ id: row.subject_id }).first()) as SubscriptionRow | undefined;
        if (sub?.status !== 'pending') continue;
        let pending = (await db('webhook_deliveries').where({ subscription_id: sub.id, kind: 'verification', status: 'pending' }).first('id', 'job_id')) as
          | { id: string; job_id: string | null }
          | undefined;
        if (!pending) {
          [pending] = (await db('webhook_deliveries')
            .insert({
              subscription_id: sub.id,
              message_id: `msg_verification_${randomUUID().replace(/-/g, '')}`,
              kind: 'verification',
              payload: JSON.stringify({ type: 'verification' }),
            })
            .returning(['id', 'job_id'])) as [{ id: string; job_id: string | null }];
        }
        if (!pending.job_id) await queue([pending.id]);
      }
    },
  };
}

type Subscribed = Pick<SubscriptionRow, 'id' | 'user_id' | 'credential' | 'include_item'>;

/**
 * The subscriptions whose credential reaches the event's list (data.listId, else its item's),
 * read at fan-out, so a grant narrowed in Settings holds from the next event on; a subscription
 * made by a connection of chosen lists gets no event of another list (docs/auth.md "Grants").
 */
async function withinReach(db: Knex, subscriptions: Subscribed[], data: Record<string, unknown>, subjectId: string): Promise<Subscribed[]> {
  let listId: string | null | undefined;
  const kept: Subscribed[] = [];
  for (const s of subscriptions) {
    const reach = await reachOfCredential(db, s.user_id, s.credential);
    if (reach) {
      listId ??=
        typeof data.listId === 'string'
          ? data.listId
          : (((await db('items').where({ id: subjectId }).first('list_id')) as { list_id: string } | undefined)?.list_id ?? null);
      if (!listId || !reach.includes(listId)) continue;
    }
    kept.push(s);
  }
  return kept;
}

/**
 * Puts deliveries on the job queue and notes their job, each in one transaction with its job:
 * the claim (which the fan-out and the end of the delivery before it both try, and only one
 * gets) and the job commit together, so a process that dies between them leaves the delivery
 * unclaimed for the next one, never claimed with no job.
 */
async function queueDeliveries(db: Knex, jobs: Jobs, settings: WebhookSettings, deliveryIds: string[]): Promise<void> {
  for (const id of deliveryIds) {
    await db.transaction(async (trx) => {
      const claimed = await trx('webhook_deliveries').where({ id }).whereNull('job_id').update({ job_id: 'queuing' });
      if (claimed === 0) return;
      const jobId = await jobs.sendInTransaction(trx, WEBHOOK_JOB, { deliveryId: id }, deliveryJobOptions(settings));
      await trx('webhook_deliveries')
        .where({ id })
        .update({ job_id: jobId ?? 'sent' });
    });
  }
}

/**
 * Once a delivery is done, queues the next pending delivery of the same subject to the same
 * subscription, if it waits unqueued.
 */
async function queueNext(db: Knex, jobs: Jobs, settings: WebhookSettings, deliveryId: string): Promise<void> {
  const done = (await db('webhook_deliveries').where({ id: deliveryId }).first('subscription_id', 'subject_id', 'status')) as
    | Pick<DeliveryRow, 'subscription_id' | 'subject_id' | 'status'>
    | undefined;
  if (!done?.subject_id || done.status === 'pending') return;
  const next = (await db('webhook_deliveries')
    .where({ subscription_id: done.subscription_id, subject_id: done.subject_id, status: 'pending' })
    .orderBy('seq')
    .first('id', 'job_id')) as { id: string; job_id: string | null } | undefined;
  if (next && next.job_id === null) await queueDeliveries(db, jobs, settings, [next.id]);
}

/** The delivery job of the job list (src/jobs/definitions.ts). */
export function webhookJob(deps: { db: Knex; log: Logger; now(): Date; settings: WebhookSettings }): JobDefinition<{ deliveryId: string }> {
  return {
    name: WEBHOOK_JOB,
    queue: deliveryJobOptions(deps.settings),
    async handler(data, job) {
      try {
        await deliver(deps, data.deliveryId, job.retryCount);
      } finally {
        // After the last attempt (or success, or a discard) the next event of the same subject may go.
        if (job.jobs) await queueNext(deps.db, job.jobs, deps.settings, data.deliveryId);
      }
    },
  };
}

class Retired extends Error {}

/** One attempt at one delivery; throws to have pg-boss retry it. */
export async function deliver(deps: { db: Knex; log: Logger; now(): Date; settings: WebhookSettings }, deliveryId: string, retryCount: number): Promise<void> {
  const { db } = deps;
  const delivery = (await db('webhook_deliveries').where({ id: deliveryId }).first()) as DeliveryRow | undefined;
  if (delivery?.status !== 'pending') return;
  const sub = (await db('event_subscriptions').where({ id: delivery.subscription_id }).first()) as SubscriptionRow | undefined;
  if (!sub || sub.status === 'retired' || (sub.expires_at && sub.expires_at <= deps.now())) {
    await db('webhook_deliveries').where({ id: deliveryId }).update({ status: 'discarded', finished_at: deps.now() });
    return;
  }
  const last = retryCount >= WEBHOOK_ATTEMPTS - 1;
  await db('webhook_deliveries').where({ id: deliveryId }).increment('attempts', 1);
  try {
    if (sub.status === 'pending') await verify(deps, sub);
    if (delivery.kind === 'event') {
      const answer = await postSigned(deps.settings, sub, delivery.message_id, JSON.stringify(delivery.payload));
      await record(db, sub, deliveryId, answer);
      if (answer.status === 410) throw new Retired();
      if (!ok(answer.status)) throw new Error(`${sub.url} answered ${answer.status}`);
      await db('event_subscriptions').where({ id: sub.id }).update({ last_delivery_at: deps.now(), last_error: null });
    }
    await db('webhook_deliveries').where({ id: deliveryId }).update({ status: 'delivered', finished_at: deps.now() });
  } catch (err) {
    if (err instanceof Retired) {
      await retire(db, sub.id, deps.now());
      deps.log.info({ subscription: sub.id }, 'webhook answered 410: subscription retired');
      return;
    }
    if (last) await db('webhook_deliveries').where({ id: deliveryId }).update({ status: 'failed', finished_at: deps.now() });
    throw err;
  }
}

/** Sends the challenge; the subscription becomes active when the answer echoes it. */
async function verify(deps: { db: Knex; now(): Date; settings: WebhookSettings }, sub: SubscriptionRow): Promise<void> {
  const challenge = randomBytes(24).toString('base64url');
  const answer = await postSigned(
    deps.settings,
    sub,
    `msg_verification_${randomBytes(12).toString('hex')}`,
    JSON.stringify({ type: 'verification', challenge }),
  );
  if (answer.status === 410) throw new Retired();
  let echoed: unknown;
  try {
    echoed = (JSON.parse(answer.body) as { challenge?: unknown }).challenge;
  } catch {
    echoed = undefined;
  }
  if (!ok(answer.status) || typeof echoed !== 'string' || !sameText(echoed, challenge)) {
    const reason = answer.error ?? (ok(answer.status) ? 'challenge_failed' : category(answer.status));
    await deps.db('event_subscriptions').where({ id: sub.id }).update({ last_error: reason });
    throw new Error(`${sub.url} did not answer the verification challenge (${reason})`);
  }
  await deps.db('event_subscriptions').where({ id: sub.id, status: 'pending' }).update({ status: 'active', verified_at: deps.now(), last_error: null });
}

async function record(db: Knex, sub: SubscriptionRow, deliveryId: string, answer: Answer): Promise<void> {
  const reason = ok(answer.status) ? null : (answer.error ?? category(answer.status));
  if (reason) webhookFailures.inc({ reason });
  await db('webhook_deliveries')
    .where({ id: deliveryId })
    .update({ last_status: answer.status || null, last_error: reason });
  if (reason) await db('event_subscriptions').where({ id: sub.id }).update({ last_error: reason });
}

async function retire(db: Knex, subscriptionId: string, at: Date): Promise<void> {
  await db('event_subscriptions').where({ id: subscriptionId }).update({ status: 'retired', retired_at: at });
  await db('webhook_deliveries').where({ subscription_id: subscriptionId, status: 'pending' }).update({ status: 'discarded', finished_at: at });
}

function ok(status: number): boolean {
  return status >= 200 && status < 300;
}

function category(status: number): string {
  return status >= 500 ? 'http_5xx' : status >= 400 ? 'http_4xx' : 'http_3xx';
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** An answer: its status (0 when none came) and body, or the failure's category. */
interface Answer {
  status: number;
  body: string;
  error?: string;
}

/**
 * One signed POST: Standard Webhooks headers plus X-MCP-Subscription-Id, a fresh timestamp and
 * signature each attempt, no redirects, a timeout, and the SSRF-guarded address lookup.
 */
export function postSigned(settings: WebhookSettings, sub: Pick<SubscriptionRow, 'id' | 'url' | 'secret'>, messageId: string, body: string): Promise<Answer> {
  const url = new URL(sub.url);
  if (literalHostBlocked(url, settings.allowPrivate)) return Promise.resolve({ status: 0, body: '', error: 'blocked_address' });
  const timestamp = new Date();
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'listkeeper-webhooks/1',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(sub.secret).sign(messageId, timestamp, body),
    'x-mcp-subscription-id': sub.id,
    'content-length': String(Buffer.byteLength(body)),
  };
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers, agent: false, lookup: guardedLookup(settings.allowPrivate), timeout: settings.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= RESPONSE_LIMIT_BYTES) chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body: '' }));
    });
    // The whole exchange, not only idle time, is bounded.
    const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), settings.timeoutMs);
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: 0, body: '', error: networkCategory(err) }));
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}

function networkCategory(err: NodeJS.ErrnoException): string {
  if (err.code === 'EBLOCKEDADDRESS') return 'blocked_address';
  if (err.code === 'ETIMEDOUT' || err.code === 'ESOCKETTIMEDOUT') return 'timeout';
  if (/CERT|TLS|SSL|EPROTO/i.test(`${err.code ?? ''} ${err.message}`)) return 'tls_error';
  return 'connection_refused';
}
