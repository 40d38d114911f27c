/**
 * Crash safety. The built server (`node dist/src/main.js`, so `make build` first) runs on its
 * own embedded Postgres in a temporary data folder and is killed with SIGKILL in the middle of
 * a 100-item create_items and a 200-item update_items. After a restart each batch is all or
 * nothing as the spec's rules say (create_items: one transaction; update_items: items in order,
 * a refusal keeps those before it), an answer the client received is never lost, and nothing
 * committed earlier is gone.
 *
 * Two kinds of crash: the server process alone (its Postgres lives on, orphaned, and the next
 * start must stop it), caught exactly mid-transaction by holding a lock the batch needs last;
 * and the whole process group, server and Postgres together (a machine or container dying),
 * at random moments, which makes Postgres recover from its WAL.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, readdirSync, closeSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { failFirstDelivery, startReceiver } from '../support/events.js';
import { mintSecret } from '../../src/domain/changes/subscriptions.js';
import { REACH_LOCAL_SERVERS, freePort } from '../support/net.js';

const ROOT = process.cwd();
const MAIN = path.join(ROOT, 'dist/src/main.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : entry.name.endsWith('.ts') ? statSync(full).mtimeMs : 0);
  }
  return newest;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

describe('crash safety', () => {
  let dataDir: string;
  let port: number;
  let env: NodeJS.ProcessEnv;
  let server: ChildProcess | null = null;
  let key: string;
  let logFile: string;

  async function start(): Promise<void> {
    const log = openSync(logFile, 'a');
    // Its own process group, so a whole-machine crash can take Postgres down with it.
    server = spawn(process.execPath, [MAIN], { cwd: ROOT, env, detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    for (let i = 0; i < 240; i++) {
      if (server.exitCode !== null) throw new Error(`the server exited while starting:\n${readFileSync(logFile, 'utf8').slice(-3000)}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ready) return;
      await sleep(250);
    }
    throw new Error('the server was not ready within 60 s');
  }

  function postmasterPid(): number | null {
    const file = path.join(dataDir, 'pg/pgdata/postmaster.pid');
    return existsSync(file) ? Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10) : null;
  }

  /** SIGKILL the server alone, or its whole process group (server, Postgres and its backends). */
  async function kill(scope: 'server' | 'machine'): Promise<void> {
    const child = server!;
    const pgPid = postmasterPid();
    if (scope === 'machine') process.kill(-child.pid!, 'SIGKILL');
    else child.kill('SIGKILL');
    for (let i = 0; i < 200 && (alive(child.pid!) || (scope === 'machine' && pgPid !== null && alive(pgPid))); i++) await sleep(50);
    expect(alive(child.pid!)).toBe(false);
    if (scope === 'server' && pgPid !== null) expect(alive(pgPid)).toBe(true); // orphaned, for the next start to deal with
    server = null;
  }

  async function stop(): Promise<void> {
    if (!server) return;
    const child = server;
    child.kill('SIGTERM');
    for (let i = 0; i < 600 && alive(child.pid!); i++) await sleep(50);
    if (alive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
    server = null;
  }

  /** A direct connection to the server's Postgres, to read rows and to hold locks. */
  async function database(): Promise<pg.Client> {
    const pgPort = readFileSync(path.join(dataDir, 'pg/port'), 'utf8').trim();
    const password = readFileSync(path.join(dataDir, 'pg/superuser-password'), 'utf8').trim();
    const client = new pg.Client({ connectionString: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/listkeeper` });
    client.on('error', () => undefined); // a crash below may end it; the test reads its result, not this event
    await client.connect();
    return client;
  }

  async function api(method: string, route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1${route}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  async function count(sql: string, params: unknown[]): Promise<number> {
    const db = await database();
    try {
      return Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);
    } finally {
      await db.end();
    }
  }

  /**
   * Sends `request` and SIGKILLs while it is inside its transaction: a lock on the activity
   * table, which both batches write last, holds the transaction after every item row is written.
   */
  async function killMidTransaction(request: () => Promise<unknown>): Promise<void> {
    const holder = await database();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE activity IN ACCESS EXCLUSIVE MODE');
    const pending = request().then(
      () => 'answered',
      () => 'no answer',
    );
    let waiting = 0;
    for (let i = 0; i < 400 && waiting === 0; i++) {
      await sleep(25);
      waiting = Number(
        (
          await holder.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'activity' AND NOT l.granted`,
          )
        ).rows[0]!.n,
      );
    }
    expect(waiting).toBe(1);
    await kill('server');
    expect(await pending).toBe('no answer');
    await holder.query('ROLLBACK');
    await holder.end();
  }

  beforeAll(async () => {
    if (!existsSync(MAIN) || statSync(MAIN).mtimeMs < newestSource(path.join(ROOT, 'src'))) {
      throw new Error('dist/ is missing or older than src/: run `make build` (make test does) before this suite.');
    }
    mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
    dataDir = mkdtempSync(path.join(ROOT, '.tmp/crash-'));
    chmodSync(dataDir, 0o755); // as root, Postgres runs as the postgres user
    logFile = path.join(dataDir, 'server.log');
    port = await freePort();
    env = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LISTKEEPER_DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      ...REACH_LOCAL_SERVERS,
      WEBHOOK_RETRY_BASE_SECONDS: '2',
      // A delivery killed before its failure was recorded stays active until it expires (three
      // request timeouts) and the queue's next maintenance pass: both short here.
      WEBHOOK_TIMEOUT_MS: '3000',
      JOB_MAINTENANCE_SECONDS: '2',
      EMBEDDINGS: 'none',
    };
    await start();
    const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/listkeeper.js', ...args], { cwd: ROOT, env, encoding: 'utf8' });
    expect(cli('user', 'create', '--email', 'crash@example.com', '--name', 'Crash').status).toBe(0);
    const created = cli('apikey', 'create', '--email', 'crash@example.com');
    expect(created.status).toBe(0);
    key = created.stdout.trim();
  }, 120_000);

  afterAll(async () => {
    await stop();
    const pgPid = dataDir ? postmasterPid() : null;
    if (pgPid && alive(pgPid)) process.kill(pgPid, 'SIGINT');
    for (let i = 0; i < 100 && pgPid && alive(pgPid); i++) await sleep(100);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('create_items: a server killed mid-batch leaves none of its 100 items, keeps what was committed, and restarts', async () => {
    const committed = await api('POST', '/items', { items: Array.from({ length: 10 }, (_, i) => ({ title: `committed ${i}` })) });
    expect(committed.status).toBe(201);
    const batch = Array.from({ length: 100 }, (_, i) => ({ title: `batch A ${i}`, externalId: `A-${i}` }));

    await killMidTransaction(() => api('POST', '/items', { items: batch }));
    await start();

    expect(await count(`SELECT count(*) AS n FROM items WHERE external_id LIKE 'A-%'`, [])).toBe(0);
    const ids = (committed.json.items as { id: string }[]).map((i) => i.id);
    expect((await api('GET', `/items?ids=${ids.join(',')}&limit=200`)).json.count).toBe(10);
    // Nothing half-done blocks the same batch now.
    const again = await api('POST', '/items', { items: batch });
    expect(again).toMatchObject({ status: 201, json: { added: 100, existing: [] } });
  }, 180_000);

  it('update_items: a server killed mid-batch changes none of its 200 items', async () => {
    const ids: string[] = [];
    for (const half of [0, 1]) {
      const made = await api('POST', '/items', { items: Array.from({ length: 100 }, (_, i) => ({ title: `before ${half * 100 + i}` })) });
      ids.push(...(made.json.items as { id: string }[]).map((i) => i.id));
    }
    const first = await api('PATCH', '/items', { items: [{ itemId: ids[0], title: 'committed change' }] });
    expect(first.status).toBe(200);

    await killMidTransaction(() => api('PATCH', '/items', { items: ids.map((itemId, i) => ({ itemId, title: `after ${i}` })), taskStatus: 'completed' }));
    await start();

    expect(await count(`SELECT count(*) AS n FROM items WHERE id = ANY($1) AND (title LIKE 'after %' OR task_status = 'completed')`, [ids])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM items WHERE id = $1 AND title = 'committed change'`, [ids[0]])).toBe(1);
  }, 180_000);

  it('a webhook delivery that failed is retried, with the same webhook-id, by the server started after a SIGKILL', async () => {
    const receiver = await startReceiver();
    try {
      const secret = mintSecret();
      const made = await api('POST', '/event-subscriptions', { url: receiver.url, secret });
      expect(made.status).toBe(201);
      receiver.secrets.set(made.json.id as string, secret);
      await receiver.verified();
      receiver.script = failFirstDelivery();
      const task = await api('POST', '/items', { items: [{ title: 'Survives a crash' }] });
      const itemId = (task.json.items as { id: string }[])[0]!.id;
      expect((await api('PATCH', '/items', { items: [{ itemId, assignedAgent: 'Bot' }] })).status).toBe(200);
      await receiver.waitFor(() => receiver.events().length === 1);
      await kill('server');
      await start();
      await receiver.waitFor(() => receiver.events().length === 2, 60_000);
      const [first, retry] = receiver.events();
      expect([first!.answered, retry!.answered]).toEqual([500, 200]);
      expect(retry!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(retry!.payload).toMatchObject({ name: 'task.awaitingAgent', data: { taskId: itemId, reason: 'assigned', agentName: 'Bot' } });
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('a whole-machine crash at random moments: each batch is all or nothing, and an answer received is never lost', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 4; round++) {
      const tag = randomUUID().slice(0, 8);
      const create = round % 2 === 0;
      let send: () => Promise<{ status: number; json: Record<string, unknown> }>;
      let written: () => Promise<number>;
      let all: number;
      if (create) {
        // 100 new items in one transaction: 0 or 100.
        send = () => api('POST', '/items', { items: Array.from({ length: 100 }, (_, i) => ({ title: `crash ${tag} ${i}`, externalId: `${tag}-${i}` })) });
        written = () => count(`SELECT count(*) AS n FROM items WHERE external_id LIKE $1`, [`${tag}-%`]);
        all = 100;
      } else {
        // 200 entries in order, the 151st not an item of this account: the spec keeps the first 150 and
        // refuses the rest (404), so the batch is 0 or 150, never anything between.
        const ids: string[] = [];
        for (const half of [0, 1])
          ids.push(
            ...(
              (await api('POST', '/items', { items: Array.from({ length: 100 }, (_, i) => ({ title: `${tag} ${half}-${i}` })) })).json.items as { id: string }[]
            ).map((i) => i.id),
          );
        ids[150] = randomUUID();
        send = () => api('PATCH', '/items', { items: ids.map((itemId) => ({ itemId, title: `changed ${tag}` })) });
        written = () => count(`SELECT count(*) AS n FROM items WHERE title = $1`, [`changed ${tag}`]);
        all = 150;
      }
      const startedAt = Date.now();
      const pending = send()
        .then((r) => ({ ...r, at: Date.now() - startedAt }))
        .catch(() => null);
      await sleep(Math.floor(Math.random() * 400));
      await kill('machine');
      const answer = await pending;
      await start();
      const n = await written();
      outcomes.push(`${create ? 'create' : 'update'}: ${n}/${all}${answer ? ` (answered ${answer.status})` : ''}`);
      expect([0, all]).toContain(n);
      if (answer) {
        expect(answer.status).toBe(create ? 201 : 404);
        expect(n).toBe(all);
      }
    }
    // Shows in the test output which moments were hit (before, during or after the commit).
    process.stdout.write(`crash rounds: ${outcomes.join('; ')}\n`);
  }, 300_000);
});
