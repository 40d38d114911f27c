/**
 * listkeeper as a cluster, without docker: one Postgres of its own (the test server the suites
 * share, a fresh database on it), the Meilisearch binary, an S3-compatible test server (s3rver),
 * two built listkeeper processes started at once on that database, and a round-robin proxy in
 * front of them. It shows what running several processes promises: migrations applied once,
 * the per-key limit exact across processes, a gapless changes feed while both write, search
 * answering alike on both, every webhook delivered under one webhook-id with a process killed
 * mid-delivery, a rolling restart under load that fails no request, a scheduled automation
 * run once, and a task reminder sent once, with both processes polling and after both were
 * killed before its time.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import S3rver from 's3rver';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { startRoundRobinProxy, startServiceProcess, type RoundRobinProxy, type ServiceProcess } from '../support/cluster.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startMeilisearch, type MeiliServer } from '../support/meili.js';
import { waitFor } from '../support/jobs.js';
import { REACH_LOCAL_SERVERS, startLocalServer, type LocalServer } from '../support/net.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname ?? '.', '../..');

interface Delivery {
  webhookId: string;
  itemId: string;
}

describe('two processes on shared services', () => {
  let database: TestDatabase;
  let meili: MeiliServer;
  let s3: S3rver;
  let dir: string;
  let env: Record<string, string>;
  const processes: Record<'a' | 'b', ServiceProcess | undefined> = { a: undefined, b: undefined };
  let proxy: RoundRobinProxy;
  let receiver: LocalServer | undefined;
  let receiverUrl: string;
  const deliveries: Delivery[] = [];
  let answerAfterMs = 0;
  let pendingAnswers = 0;
  const keys: string[] = [];
  let automationOwner = '';

  const a = () => processes.a!;
  const b = () => processes.b!;

  async function call(base: string, key: string, method: string, route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${base}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-cluster-'));
    database = await createTestDatabase();
    meili = await startMeilisearch();
    s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: 'lk-files' }] });
    const { port: s3Port } = (await s3.run()) as AddressInfo;
    receiver = await startLocalServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const payload = JSON.parse(body) as { type: string; challenge?: string; data?: { itemId?: string } };
        if (payload.type === 'verification')
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: payload.challenge }));
        deliveries.push({ webhookId: String(req.headers['webhook-id']), itemId: String(payload.data?.itemId) });
        pendingAnswers++;
        setTimeout(() => {
          pendingAnswers--;
          res.writeHead(200).end();
        }, answerAfterMs);
      });
    });
    receiverUrl = `${receiver.url}/hooks`;
    proxy = await startRoundRobinProxy(() => [a().url, b().url]);

    env = {
      DATABASE_URL: database.url,
      BASE_URL: proxy.url,
      TRUST_PROXY: 'true',
      TRUST_PROXY_HOPS: '1',
      RATE_LIMIT_PER_MINUTE: '60',
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '100000',
      SEARCH_BACKEND: 'meilisearch',
      MEILI_URL: meili.url,
      MEILI_API_KEY: meili.apiKey,
      S3_BUCKET: 'lk-files',
      S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
      EMBEDDINGS: 'none',
      ...REACH_LOCAL_SERVERS,
      WEBHOOK_RETRY_BASE_SECONDS: '1',
      WEBHOOK_TIMEOUT_MS: '3000',
      JOB_MAINTENANCE_SECONDS: '1',
      REMINDER_POLL_SECONDS: '1',
      SHUTDOWN_TIMEOUT_MS: '10000',
    };
    // Both at once, on a database nobody migrated yet.
    const started = await Promise.allSettled([
      startServiceProcess('a', env).then((p) => (processes.a = p)),
      startServiceProcess('b', env).then((p) => (processes.b = p)),
    ]);
    for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;

    for (let i = 0; i < 16; i++) {
      const user = await createUser(database.knex, { email: `member${i}@example.com`, name: `Member ${i}`, timezone: 'Europe/London' });
      keys.push(await createApiKey(database.knex, user.id));
    }
    // A scheduled automation, made now so that its first minute comes while the other tests run.
    automationOwner = 'member15@example.com';
    const file = path.join(dir, 'tick.yaml');
    await writeFile(
      file,
      ['name: Tick', 'schedule: "* * * * *"', 'actions:', '  - type: createItems', '    items:', '      - title: "Tick {date}"', ''].join('\n'),
    );
    await run(process.execPath, [path.join(root, 'bin/listkeeper.js'), 'automation', 'create', '--email', automationOwner, '--file', file], {
      env: { ...process.env, DATABASE_URL: database.url },
    });
  }, 180_000);

  afterAll(async () => {
    await Promise.all([processes.a?.stop('SIGKILL'), processes.b?.stop('SIGKILL')]);
    await proxy?.close();
    await receiver?.close();
    await s3?.close();
    await meili?.stop();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('applied each migration once although both processes started on an empty database at the same time', async () => {
    const names = (await database.knex('knex_migrations').pluck('name')) as string[];
    expect(names.length).toBeGreaterThan(10);
    expect(new Set(names).size).toBe(names.length);
  });

  it('holds the 60-a-minute limit exactly across both processes', async () => {
    // One fixed minute window: start early in a minute.
    while (new Date().getSeconds() > 45) await sleep(500);
    const statuses = await Promise.all(Array.from({ length: 70 }, () => call(proxy.url, keys[0]!, 'GET', '/lists').then((r) => r.status)));
    expect({ ok: statuses.filter((s) => s === 200).length, limited: statuses.filter((s) => s === 429).length }).toEqual({ ok: 60, limited: 10 });
    expect(proxy.answeredBy.get(a().url)).toBeGreaterThan(20);
    expect(proxy.answeredBy.get(b().url)).toBeGreaterThan(20);
  }, 60_000);

  it('keeps the changes feed gapless while both processes write', async () => {
    const key = keys[1]!;
    const since = new Date().toISOString();
    const written: string[] = [];
    const write = async (base: string, label: string) => {
      for (let batch = 0; batch < 8; batch++) {
        const { status, json } = await call(base, key, 'POST', '/items', {
          listId: 'tasks',
          items: Array.from({ length: 10 }, (_, i) => ({ title: `${label} ${batch}.${i}` })),
        });
        expect(status).toBe(201);
        written.push(...(json.items as { id: string }[]).map((item) => item.id));
      }
    };
    const writing = Promise.all([write(a().url, 'A'), write(b().url, 'B')]);
    let done = false;
    void writing.then(() => (done = true));
    const read: string[] = [];
    let cursor = since;
    for (;;) {
      const finished = done;
      const { json } = await call(proxy.url, key, 'GET', `/items?changedSince=${encodeURIComponent(cursor)}&limit=50`);
      read.push(...(json.items as { id: string }[]).map((item) => item.id));
      cursor = String(json.nextChangedSince);
      if (!json.hasMore && finished) break;
      if (!json.hasMore) await sleep(300);
    }
    await writing;
    expect(read).toHaveLength(written.length);
    expect(new Set(read)).toEqual(new Set(written));
  }, 60_000);

  it('answers a search alike on both processes', async () => {
    const key = keys[2]!;
    const titles = ['Renew the car insurance', 'Book the ferry to Bilbao', 'Car wash on Saturday', 'Insurance claim for the bike'];
    await call(proxy.url, key, 'POST', '/items', { listId: 'notes', items: titles.map((title) => ({ title })) });
    // Polled every ~0.7 s: the key's 60 requests a minute must outlast a slow first indexing
    // (at 10 polls a second it ran out after 6 s, and the wait could then never succeed).
    await waitFor(async () => {
      const { json } = await call(a().url, key, 'GET', '/search?q=insurance');
      if ((json.count as number) >= 2) return true;
      await sleep(600);
      return undefined;
    }, 30_000);
    for (const q of ['insurance', 'car', 'ferry bilbao']) {
      const [onA, onB] = await Promise.all([
        call(a().url, key, 'GET', `/search?q=${encodeURIComponent(q)}`),
        call(b().url, key, 'GET', `/search?q=${encodeURIComponent(q)}`),
      ]);
      const ids = (r: { json: Record<string, unknown> }) => (r.json.results as { itemId: string }[]).map((hit) => hit.itemId);
      expect(ids(onA).length).toBeGreaterThan(0);
      expect(ids(onB)).toEqual(ids(onA));
    }
  }, 60_000);

  it('delivers every webhook under one webhook-id although a process is killed mid-delivery', async () => {
    const key = keys[3]!;
    const made = await call(proxy.url, key, 'POST', '/event-subscriptions', { url: receiverUrl, events: ['item.created'] });
    expect(made.status).toBe(201);
    await waitFor(async () => {
      const { json } = await call(proxy.url, key, 'GET', '/event-subscriptions');
      return (json.subscriptions as { status: string }[]).every((s) => s.status === 'active') ? true : undefined;
    }, 30_000);
    answerAfterMs = 1500;
    const itemIds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const { json } = await call(proxy.url, key, 'POST', '/items', { listId: 'tasks', items: [{ title: `Delivered ${i}` }] });
      itemIds.push((json.items as { id: string }[])[0]!.id);
    }
    // Each process delivers one at a time: two deliveries waiting on the receiver at once are one of each.
    await waitFor(async () => (pendingAnswers >= 2 ? true : undefined), 20_000);
    const inFlight = deliveries.slice(-2).map((d) => d.webhookId);
    await a().stop('SIGKILL');
    processes.a = await startServiceProcess('a', env, a().port);
    answerAfterMs = 0;
    const redelivered = () => inFlight.some((id) => deliveries.filter((d) => d.webhookId === id).length >= 2);
    // The killed process's job is retried once it expires (three request timeouts) and the queue's next maintenance pass sees it.
    await waitFor(async () => (itemIds.every((id) => deliveries.some((d) => d.itemId === id)) && redelivered() ? true : undefined), 60_000);

    const idsByItem = new Map<string, Set<string>>();
    for (const d of deliveries.filter((d) => itemIds.includes(d.itemId))) idsByItem.set(d.itemId, (idsByItem.get(d.itemId) ?? new Set()).add(d.webhookId));
    // Every event came, each under exactly one webhook-id (a receiver dedupes on it) ...
    expect([...idsByItem.values()].map((ids) => ids.size)).toEqual(itemIds.map(() => 1));
    // ... and the delivery the killed process had in flight went out again, under the same id.
    expect(redelivered()).toBe(true);
  }, 120_000);

  it('fails no request while both processes restart one after the other under steady load', async () => {
    let stop = false;
    const outcomes: (number | string)[] = [];
    const loop = async (worker: number) => {
      for (let n = 0; !stop; n++) {
        const key = keys[4 + ((worker * 7 + n) % 10)]!;
        const write = n % 2 === 1;
        const outcome = await call(
          proxy.url,
          key,
          write ? 'POST' : 'GET',
          write ? '/items' : '/lists',
          write ? { items: [{ title: `Load ${worker}.${n}` }] } : undefined,
        ).then(
          (r) => r.status,
          (err: Error) => err.message,
        );
        outcomes.push(outcome);
        await sleep(300);
      }
    };
    const load = Promise.all([0, 1, 2].map(loop));
    await sleep(1000);
    for (const name of ['a', 'b'] as const) {
      const old = processes[name]!;
      expect(await old.stop('SIGTERM')).toBe(0);
      processes[name] = await startServiceProcess(name, env, old.port);
      await sleep(1000);
    }
    stop = true;
    await load;
    const failed = outcomes.filter((o) => o !== 200 && o !== 201);
    expect({ requests: outcomes.length > 30, failed }).toEqual({ requests: true, failed: [] });
    expect(proxy.unreachable).toBe(0);
  }, 120_000);

  it('ran the scheduled automation once for its minute, with two processes scheduling', async () => {
    const owner = (await database.knex('users').where({ email: automationOwner }).first('id')) as { id: string };
    const runs = await waitFor(async () => {
      const rows = (await database.knex('automation_runs').where({ owner_id: owner.id }).whereNotNull('finished_at').select('scheduled_for', 'outcome')) as {
        scheduled_for: Date;
        outcome: string;
      }[];
      return rows.length > 0 ? rows : undefined;
    }, 120_000);
    await database.knex('automations').where({ owner_id: owner.id }).update({ status: 'paused' });
    await sleep(2000);
    const finished = (await database.knex('automation_runs').where({ owner_id: owner.id }).select('scheduled_for', 'outcome')) as {
      scheduled_for: Date;
      outcome: string;
    }[];
    expect(finished.length).toBeGreaterThanOrEqual(runs.length);
    expect(new Set(finished.map((r) => r.scheduled_for.toISOString())).size).toBe(finished.length);
    // Each run wrote its item once: as many "Tick" items as runs that succeeded.
    const ticks = await database.knex('items').where({ owner_id: owner.id }).where('title', 'like', 'Tick %').count<{ count: string }[]>('* as count');
    expect(Number(ticks[0]!.count)).toBe(finished.filter((r) => r.outcome === 'succeeded').length);
    expect(finished.filter((r) => r.outcome === 'succeeded').length).toBeGreaterThan(0);
  }, 150_000);

  it('sends a reminder once with both processes polling, and once after both were killed before its time', async () => {
    const key = keys[14]!;
    const made = await call(proxy.url, key, 'POST', '/event-subscriptions', { url: receiverUrl, events: ['task.reminder'] });
    expect(made.status).toBe(201);
    // Polled at a pace the key's rate limit (60 a minute) allows, however long verification takes on a busy machine.
    await waitFor(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const { status, json } = await call(proxy.url, key, 'GET', '/event-subscriptions');
      return status === 200 && (json.subscriptions as { status: string }[]).every((s) => s.status === 'active') ? true : undefined;
    }, 60_000);
    const remind = async (title: string, inMs: number) => {
      const { json } = await call(proxy.url, key, 'POST', '/items', {
        listId: 'tasks',
        items: [{ title, reminderAt: new Date(Date.now() + inMs).toISOString() }],
      });
      return (json.items as { id: string }[])[0]!.id;
    };
    const sentFor = (id: string) => deliveries.filter((d) => d.itemId === id);

    const first = await remind('Reminder with both running', 2000);
    await waitFor(async () => (sentFor(first).length > 0 ? true : undefined), 30_000);
    // Both processes poll every second: several more polls pass, and it stays one.
    await sleep(3000);
    expect(sentFor(first)).toHaveLength(1);

    const second = await remind('Reminder across a crash', 3000);
    await Promise.all([a().stop('SIGKILL'), b().stop('SIGKILL')]);
    await sleep(4000);
    expect(sentFor(second)).toHaveLength(0);
    const [portA, portB] = [a().port, b().port];
    [processes.a, processes.b] = await Promise.all([startServiceProcess('a', env, portA), startServiceProcess('b', env, portB)]);
    await waitFor(async () => (sentFor(second).length > 0 ? true : undefined), 30_000);
    await sleep(3000);
    expect(sentFor(second)).toHaveLength(1);
  }, 120_000);
});
