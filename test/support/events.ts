/**
 * Event delivery for tests: the real job queue (pg-boss) and outbox pump on a test server's
 * database, and a real webhook receiver on 127.0.0.1 that checks every request with the
 * `standardwebhooks` library and answers as each test scripts it.
 */
import { beforeAll, expect } from '@jest/globals';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { startJobs, type Jobs } from '../../src/jobs/queue.js';
import { jobDefinitions, webhookSettings } from '../../src/jobs/definitions.js';
import { startOutboxPump, type OutboxPump } from '../../src/jobs/outbox.js';
import { webhookConsumers } from '../../src/jobs/webhooks.js';
import { mintSecret } from '../../src/domain/changes/subscriptions.js';
import { REACH_LOCAL_SERVERS, startLocalServer } from './net.js';
import { standIn, useTestServer, type SuiteServer, type TestAccount, type TestServer } from './server.js';

/** Settings for a suite that delivers events to a receiver on 127.0.0.1: reach it, retry soon, give up soon. */
export const DELIVERY_ENV = { ...REACH_LOCAL_SERVERS, WEBHOOK_RETRY_BASE_SECONDS: '1', WEBHOOK_TIMEOUT_MS: '2000' } as const;

export interface Delivery {
  /** The queue instance that is running now. */
  jobs: Jobs;
  /** How many delivery attempts each queue instance made, in start order. */
  attemptsByInstance: number[];
  /** Stops the queue and starts a new one on the same database (a server restart). */
  restartQueue(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the job queue and the outbox pump with the webhook consumers, as serve.ts does. */
export async function startDelivery(server: TestServer): Promise<Delivery> {
  const log = pino({ level: 'silent' });
  const attemptsByInstance: number[] = [];
  const startQueue = async () => {
    const instance = attemptsByInstance.push(0) - 1;
    const defs = jobDefinitions({ db: server.db, log, now: () => server.services.now(), config: server.config }).map((d) => ({
      ...d,
      schedule: undefined,
      handler: async (data: object, job: { id: string; retryCount: number }) => {
        if (d.name === 'webhook.deliver') attemptsByInstance[instance]! += 1;
        await d.handler(data, job);
      },
    }));
    return startJobs(server.dbUrl, defs, log);
  };
  let jobs = await startQueue();
  server.services.jobs = jobs;
  // The consumers read the queue through this object, so a restarted queue takes over.
  const current: Jobs = {
    send: (name, data, options) => jobs.send(name, data, options),
    sendInTransaction: (trx, name, data, options) => jobs.sendInTransaction(trx, name, data, options),
    stop: () => jobs.stop(),
  };
  const pump: OutboxPump = startOutboxPump(
    server.db,
    webhookConsumers({ db: server.db, jobs: current, settings: webhookSettings(server.config), log }),
    log,
    100,
  );
  return {
    get jobs() {
      return jobs;
    },
    attemptsByInstance,
    async restartQueue() {
      await jobs.stop();
      jobs = await startQueue();
      server.services.jobs = jobs;
    },
    async stop() {
      await pump.stop();
      await jobs.stop();
    },
  };
}

/**
 * useTestServer with event delivery running on it (startDelivery, after the server started) and
 * DELIVERY_ENV under the suite's own settings; delivery stops before the server closes.
 */
export function useDeliveryServer(options: Parameters<typeof useTestServer>[0] & { env?: Record<string, string> } = {}): SuiteServer & { delivery: Delivery } {
  let delivery: Delivery | undefined;
  const suite = useTestServer({
    ...options,
    env: { ...DELIVERY_ENV, ...options.env },
    beforeClose: async () => {
      await options.beforeClose?.();
      await delivery?.stop();
    },
  });
  beforeAll(async () => {
    delivery = await startDelivery(suite.server);
  });
  return { ...suite, delivery: standIn(() => delivery, 'the event delivery') };
}

export interface ReceivedRequest {
  headers: Record<string, string>;
  body: string;
  /** The verified payload, or null when the signature did not verify. */
  payload: Record<string, unknown> | null;
  verifyError: string | null;
  /** What the receiver answered. */
  answered: number;
}

/** What to answer to one verified request: a status (0: no answer at all) and an optional JSON body. */
export type Script = (payload: Record<string, unknown>, req: ReceivedRequest) => { status: number; body?: unknown } | undefined;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Secrets by subscription id; until one is known the receiver answers 503 (retry later). */
  secrets: Map<string, string>;
  /** Scripts the answers; returning undefined falls back to the default (echo a challenge, 200 an event). */
  script: Script | null;
  /** Event requests (no `type`), verified. */
  events(): ReceivedRequest[];
  /** Waits until `predicate` holds over the requests, or fails after `timeoutMs`. */
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Waits until a verification request was answered 200: for the subscription `id`, or for any. */
  verified(id?: string): Promise<void>;
  close(): Promise<void>;
}

/** A script that answers 500 to the first event delivery (not a verification) and lets every later one through. */
export function failFirstDelivery(): Script {
  let failed = false;
  return (payload) => {
    if (payload.type === 'verification' || failed) return undefined;
    failed = true;
    return { status: 500 };
  };
}

/** A webhook receiver on 127.0.0.1 (REACH_LOCAL_SERVERS lets the service call it). */
export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const secrets = new Map<string, string>();
  const receiver: Receiver = {
    url: '',
    requests,
    secrets,
    script: null,
    events: () => requests.filter((r) => r.payload && r.payload.type !== 'verification'),
    async waitFor(predicate, timeoutMs = 30_000) {
      const started = Date.now();
      while (!predicate(requests)) {
        if (Date.now() - started > timeoutMs)
          throw new Error(
            `receiver: condition not met within ${timeoutMs} ms; saw ${requests.length} requests: ${requests.map((r) => `${r.answered} ${r.body.slice(0, 80)}`).join(' | ')}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    verified: (id) =>
      receiver.waitFor((r) =>
        r.some((q) => q.payload?.type === 'verification' && q.answered === 200 && (id === undefined || q.headers['x-mcp-subscription-id'] === id)),
      ),
    close: () => local.close(),
  };
  const local = await startLocalServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      const body = Buffer.concat(chunks).toString('utf8');
      const record: ReceivedRequest = { headers, body, payload: null, verifyError: null, answered: 0 };
      requests.push(record);
      const answer = (status: number, json?: unknown) => {
        record.answered = status;
        res.writeHead(status, { 'content-type': 'application/json' }).end(json === undefined ? '' : JSON.stringify(json));
      };
      if (req.url !== path) return answer(404);
      const secret = secrets.get(headers['x-mcp-subscription-id'] ?? '');
      if (!secret) return answer(503, { error: 'unknown subscription yet' });
      try {
        record.payload = new Webhook(secret).verify(body, headers) as Record<string, unknown>;
      } catch (err) {
        record.verifyError = (err as Error).message;
        return answer(401, { error: 'bad signature' });
      }
      const scripted = receiver.script?.(record.payload, record);
      // Status 0: never answer (the service's timeout ends the request).
      if (scripted?.status === 0) return;
      if (scripted) return answer(scripted.status, scripted.body);
      if (record.payload.type === 'verification') return answer(200, { challenge: record.payload.challenge });
      return answer(200, { ok: true });
    });
  });
  receiver.url = `${local.url}${path}`;
  return receiver;
}

/**
 * Subscribes `account` over REST to `receiver` with a secret of its own, which the receiver
 * learns; the answer never shows that secret back. Returns the subscription with its secret.
 */
export async function subscribeWebhook(
  account: TestAccount,
  receiver: Receiver,
  body: { events?: string[]; includeItem?: boolean } = {},
  secret = mintSecret(),
) {
  const res = await account.sdk.POST('/event-subscriptions', { body: { url: receiver.url, secret, ...body } as never });
  expect(res.response.status).toBe(201);
  expect(res.data).not.toHaveProperty('secret');
  receiver.secrets.set(res.data!.id, secret);
  return { ...res.data!, secret };
}
