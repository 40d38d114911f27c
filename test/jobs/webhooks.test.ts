/**
 * Webhook delivery end to end: a real receiver on 127.0.0.1 (DELIVERY_ENV lets the service reach it)
 * verifies every request with the standardwebhooks library; the real job queue retries.
 */
import { describe, it, expect } from '@jest/globals';
import { pino } from 'pino';
import type { TestServer, TestAccount } from '../support/server.js';
import { failFirstDelivery, startReceiver, subscribeWebhook as subscribe, useDeliveryServer } from '../support/events.js';
import { mintSecret } from '../../src/domain/changes/subscriptions.js';
import { create_items } from '../../src/operations/create_items.js';
import { post_chat_message } from '../../src/operations/post_chat_message.js';
import { postPersonMessage } from '../../src/domain/chat/chat.js';
import { createShare } from '../../src/domain/lists/shares.js';
import { deliver, postSigned, webhookConsumers } from '../../src/jobs/webhooks.js';
import type { OutboxRow } from '../../src/jobs/outbox.js';

/** Polls `read` until `done` holds for its value (or 10 s pass), and returns the last value. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    value = await read();
  }
  return value;
}

async function task(server: TestServer, account: TestAccount, title: string): Promise<string> {
  return (await create_items(server.context(account), { items: [{ title }] })).items[0]!.id;
}

async function assign(account: TestAccount, id: string, agent: string): Promise<void> {
  const res = await account.sdk.PATCH('/items', { body: { items: [{ itemId: id, assignedAgent: agent }] } });
  expect(res.response.status).toBe(200);
}

describe('webhook delivery', () => {
  const { server } = useDeliveryServer({ accounts: [] });

  it('verifies the callback with a signed challenge, then delivers task.awaitingAgent signed per Standard Webhooks', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      const sub = await subscribe(ada, receiver);
      expect(sub).toMatchObject({ status: 'pending', verifiedAt: null, via: 'rest', events: ['task.awaitingAgent'] });
      await receiver.verified();
      const listed = await eventually(
        () => ada.sdk.GET('/event-subscriptions'),
        (l) => l.data!.subscriptions[0]!.status === 'active',
      );
      expect(listed.data!.subscriptions[0]).toMatchObject({ id: sub.id, status: 'active', verifiedAt: expect.any(String) });

      const id = await task(server, ada, 'Book the vet');
      await assign(ada, id, 'Pet bot');
      await receiver.waitFor(() => receiver.events().length === 1);
      const [event] = receiver.events();
      expect(event!.payload).toEqual({
        eventId: expect.stringMatching(/^evt_/),
        type: 'task.awaitingAgent',
        name: 'task.awaitingAgent',
        timestamp: expect.any(String),
        data: { taskId: id, title: 'Book the vet', reason: 'assigned', agentName: 'Pet bot', occurredAt: expect.any(String) },
        cursor: null,
      });
      expect(event!.headers).toMatchObject({
        'webhook-id': event!.payload!.eventId,
        'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
        'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
        'x-mcp-subscription-id': sub.id,
        'content-type': 'application/json',
      });
      const verification = receiver.requests.find((q) => q.payload?.type === 'verification')!;
      expect(receiver.requests.indexOf(verification)).toBeLessThan(receiver.requests.indexOf(event!));
      expect(verification.headers['webhook-signature']).toMatch(/^v1,/);
      expect(receiver.requests.every((q) => q.verifyError === null)).toBe(true);
      const after = await eventually(
        () => ada.sdk.GET('/event-subscriptions'),
        (l) => l.data!.subscriptions[0]!.lastDeliveryAt !== null,
      );
      expect(after.data!.subscriptions[0]).toMatchObject({ lastDeliveryAt: expect.any(String), lastError: null });
    } finally {
      await receiver.close();
    }
  });

  it('retries a failed delivery with the same webhook-id: fails twice, then succeeds', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      await subscribe(ada, receiver);
      let failures = 0;
      receiver.script = (payload) => (payload.type !== 'verification' && failures++ < 2 ? { status: 500, body: { error: 'busy' } } : undefined);
      const id = await task(server, ada, 'Retry me');
      await assign(ada, id, 'Bot');
      await receiver.waitFor(() => receiver.events().some((e) => e.answered === 200), 40_000);
      const attempts = receiver.events();
      expect(attempts.map((a) => a.answered)).toEqual([500, 500, 200]);
      expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
      expect(new Set(attempts.map((a) => a.headers['webhook-signature'])).size).toBeGreaterThan(1);
      const row = await eventually(
        () => server.db('webhook_deliveries').where({ message_id: attempts[0]!.headers['webhook-id'] }).first(),
        (r) => r.status !== 'pending',
      );
      expect(row).toMatchObject({ status: 'delivered', attempts: 3, last_status: 200 });
    } finally {
      await receiver.close();
    }
  });

  it('gives up after 5 attempts in all and marks the delivery failed', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      await subscribe(ada, receiver);
      receiver.script = (payload) => (payload.type === 'verification' ? undefined : { status: 503 });
      const id = await task(server, ada, 'Never acknowledged');
      await assign(ada, id, 'Bot');
      await receiver.waitFor(() => receiver.events().length === 5, 90_000);
      const messageId = receiver.events()[0]!.headers['webhook-id'];
      const row = await eventually(
        () => server.db('webhook_deliveries').where({ message_id: messageId }).first(),
        (r) => r.status === 'failed',
      );
      expect(row).toMatchObject({ status: 'failed', attempts: 5, last_status: 503, last_error: 'http_5xx' });
      await new Promise((r) => setTimeout(r, 3000));
      expect(receiver.events()).toHaveLength(5);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('retires the subscription on a 410 answer: no further delivery reaches it', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      const sub = await subscribe(ada, receiver);
      receiver.script = (payload) => (payload.type === 'verification' ? undefined : { status: 410 });
      const first = await task(server, ada, 'Gone');
      await assign(ada, first, 'Bot');
      await receiver.waitFor(() => receiver.events().length === 1);
      const listed = await eventually(
        () => ada.sdk.GET('/event-subscriptions'),
        (l) => l.data!.subscriptions[0]!.status === 'retired',
      );
      expect(listed.data!.subscriptions[0]).toMatchObject({ id: sub.id, status: 'retired' });
      await assign(ada, await task(server, ada, 'After'), 'Bot');
      await new Promise((r) => setTimeout(r, 2500));
      expect(receiver.events()).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('retires the subscription when the verification itself is answered 410, sending no event', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      receiver.script = () => ({ status: 410 });
      const sub = await subscribe(ada, receiver);
      await receiver.waitFor((r) => r.length >= 1);
      await assign(ada, await task(server, ada, 'Unwanted'), 'Bot');
      const row = await eventually(
        () => server.db('event_subscriptions').where({ id: sub.id }).first(),
        (r) => r.status === 'retired',
      );
      expect(row.status).toBe('retired');
      await new Promise((r) => setTimeout(r, 1500));
      expect(receiver.events()).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('keeps a subscription pending, and sends it no event, while the challenge is not echoed', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      receiver.script = (payload) => (payload.type === 'verification' ? { status: 200, body: { challenge: 'wrong' } } : undefined);
      const sub = await subscribe(ada, receiver);
      await assign(ada, await task(server, ada, 'Waits'), 'Bot');
      await receiver.waitFor((r) => r.filter((q) => q.payload?.type === 'verification').length >= 3, 20_000);
      expect(receiver.events()).toHaveLength(0);
      const row = await server.db('event_subscriptions').where({ id: sub.id }).first();
      expect(row).toMatchObject({ status: 'pending', last_error: 'challenge_failed' });
      // Once the receiver answers properly, the pending event follows the challenge.
      receiver.script = null;
      await receiver.waitFor(() => receiver.events().length === 1, 30_000);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('shows a minted secret once, and signs with it', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      const res = await ada.sdk.POST('/event-subscriptions', { body: { url: receiver.url } });
      expect(res.data!.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      // Until the secret is known the receiver answers 503 and the service retries.
      receiver.secrets.set(res.data!.id, res.data!.secret!);
      const listed = await ada.sdk.GET('/event-subscriptions');
      expect(listed.data!.subscriptions[0]).not.toHaveProperty('secret');
      await assign(ada, await task(server, ada, 'Minted'), 'Bot');
      await receiver.waitFor(() => receiver.events().length === 1);
      expect(receiver.events()[0]!.verifyError).toBeNull();
    } finally {
      await receiver.close();
    }
  });

  it("delivers reason reply when the person answers an agent's question in the chat", async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      await subscribe(ada, receiver);
      const id = await task(server, ada, 'Choose flights');
      await post_chat_message(server.context(ada), { id, message: 'Morning or evening?', agentName: 'Travel agent', needsInput: true });
      const item = await server.db('items').where({ id }).first();
      const list = await server.db('lists').where({ id: item.list_id }).first();
      await postPersonMessage(server.db, item, list, { id: ada.userId, name: 'Ada' }, 'Morning please');
      await receiver.waitFor(() => receiver.events().length === 1);
      expect(receiver.events()[0]!.payload!.data).toEqual({
        taskId: id,
        title: 'Choose flights',
        reason: 'reply',
        agentName: 'Travel agent',
        occurredAt: expect.any(String),
      });
    } finally {
      await receiver.close();
    }
  });

  it('sends an event on a shared task to the subscriptions of everyone who reaches it, and none after a delete', async () => {
    const [owner, friend] = [await server.account('Owner'), await server.account('Friend')];
    const [mine, theirs] = [await startReceiver('/owner'), await startReceiver('/friend')];
    try {
      await subscribe(owner, mine);
      const friendSub = await subscribe(friend, theirs);
      await theirs.waitFor((r) => r.some((q) => q.payload?.type === 'verification'));
      const id = await task(server, owner, 'Shared errand');
      await createShare(server.db, { itemId: id }, friend.userId);
      await assign(owner, id, 'Bot');
      await mine.waitFor(() => mine.events().length === 1);
      await theirs.waitFor(() => theirs.events().length === 1);
      expect(theirs.events()[0]!.payload!.eventId).toBe(mine.events()[0]!.payload!.eventId);
      expect((await friend.sdk.DELETE('/event-subscriptions', { params: { query: { id: friendSub.id } } })).response.status).toBe(200);
      await assign(owner, id, 'Another bot');
      await mine.waitFor(() => mine.events().length === 2);
      await new Promise((r) => setTimeout(r, 1500));
      expect(theirs.events()).toHaveLength(1);
    } finally {
      await mine.close();
      await theirs.close();
    }
  });

  it('checks the address again at delivery time: without the dev setting a loopback callback is never called', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      const sub = await subscribe(ada, receiver);
      await receiver.waitFor((r) => r.length >= 1);
      const seen = receiver.requests.length;
      const strict = { allowPrivate: false, retryBaseSeconds: 1, timeoutMs: 1000 };
      // By name (resolved through DNS at delivery) and by literal address.
      for (const url of [receiver.url.replace('127.0.0.1', 'localhost'), receiver.url]) {
        const answer = await postSigned(strict, { id: sub.id, url, secret: sub.secret }, 'msg_test', '{}');
        expect(answer).toMatchObject({ status: 0, error: 'blocked_address' });
      }
      await server
        .db('event_subscriptions')
        .where({ id: sub.id })
        .update({ url: receiver.url.replace('127.0.0.1', 'localhost'), status: 'active' });
      const [row] = await server
        .db('webhook_deliveries')
        .insert({ subscription_id: sub.id, message_id: 'evt_ssrf', kind: 'event', payload: JSON.stringify({ eventId: 'evt_ssrf' }), job_id: 'manual' })
        .returning('id');
      await expect(deliver({ db: server.db, log: pino({ level: 'silent' }), now: () => new Date(), settings: strict }, row.id, 0)).rejects.toThrow();
      expect((await server.db('webhook_deliveries').where({ id: row.id }).first()).last_error).toBe('blocked_address');
      expect(receiver.requests).toHaveLength(seen);
    } finally {
      await receiver.close();
    }
  });

  it('queues each delivery once when the outbox hands the same event to the consumer again (at-least-once pump), also after a process died queueing it', async () => {
    const ada = await server.account('Ada');
    await server
      .db('event_subscriptions')
      .insert({ user_id: ada.userId, via: 'rest', url: 'http://127.0.0.1:9/x', secret: mintSecret(), events: ['task.awaitingAgent'], status: 'active' });
    const id = await task(server, ada, 'Handed over twice');
    // The row as the outbox holds it (built here, not emitted, so the running pump does not see it).
    const occurrence = {
      eventId: 'evt_twice',
      name: 'task.awaitingAgent',
      timestamp: new Date().toISOString(),
      data: { taskId: id, title: 'Handed over twice', reason: 'assigned', agentName: 'Bot', occurredAt: new Date().toISOString() },
      cursor: null,
    };
    const sent: object[] = [];
    // The first process dies as it queues the job (after its claim): nothing of the claim may stay.
    let dies = true;
    const consumers = webhookConsumers({
      db: server.db,
      jobs: {
        send: async () => {
          throw new Error('not used here: a delivery is queued in the transaction of its claim');
        },
        sendInTransaction: async (_trx, _name, data) => {
          if (dies) throw new Error('the process died here');
          sent.push(data);
          return `job-${sent.length}`;
        },
        stop: async () => undefined,
      },
      settings: { allowPrivate: true, retryBaseSeconds: 1, timeoutMs: 1000 },
      log: pino({ level: 'silent' }),
    });
    const row: OutboxRow = { id: 1, topic: 'event', subject_id: id, payload: occurrence, attempts: 0 };
    await expect(consumers.event!([row])).rejects.toThrow('the process died here');
    expect(await server.db('webhook_deliveries').where({ message_id: occurrence.eventId }).pluck('job_id')).toEqual([null]);
    dies = false;
    await consumers.event!([row]);
    await consumers.event!([row]);
    expect(sent).toHaveLength(1);
    expect(await server.db('webhook_deliveries').where({ message_id: occurrence.eventId }).pluck('job_id')).toEqual(['job-1']);
  });

  it('ends a request that gets no answer at the timeout', async () => {
    const receiver = await startReceiver();
    try {
      receiver.secrets.set('sub-timeout', mintSecret());
      receiver.script = () => ({ status: 0 });
      const started = Date.now();
      const answer = await postSigned(
        { allowPrivate: true, retryBaseSeconds: 1, timeoutMs: 300 },
        { id: 'sub-timeout', url: receiver.url, secret: receiver.secrets.get('sub-timeout')! },
        'msg_t',
        '{"x":1}',
      );
      expect(answer).toMatchObject({ status: 0, error: 'timeout' });
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await receiver.close();
    }
  });
});

describe('webhook retries across a queue restart', () => {
  const { server, delivery } = useDeliveryServer({ env: { WEBHOOK_RETRY_BASE_SECONDS: '3' }, accounts: [] });

  it('delivers the retry from a new queue instance after the first one stopped', async () => {
    const ada = await server.account('Ada');
    const receiver = await startReceiver();
    try {
      await subscribe(ada, receiver);
      await receiver.verified();
      receiver.script = failFirstDelivery();
      await assign(ada, await task(server, ada, 'Survives a restart'), 'Bot');
      await receiver.waitFor(() => receiver.events().length === 1);
      const before = delivery.attemptsByInstance[0];
      await delivery.restartQueue();
      await receiver.waitFor(() => receiver.events().length === 2, 40_000);
      const [first, retry] = receiver.events();
      expect([first!.answered, retry!.answered]).toEqual([500, 200]);
      expect(retry!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(delivery.attemptsByInstance[0]).toBe(before);
      expect(delivery.attemptsByInstance[1]).toBeGreaterThanOrEqual(1);
    } finally {
      await receiver.close();
    }
  });
});
