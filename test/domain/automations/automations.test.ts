/** Automation actions, the scheduler tick (once across processes and restarts) and definitions. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import type http from 'node:http';
import { pino } from 'pino';
import { useTestServer } from '../../support/server.js';
import { startTestJobs, waitFor } from '../../support/jobs.js';
import { createDb } from '../../../src/store/db.js';
import { createAutomation, checkDefinition, type AutomationRow, type RunRow } from '../../../src/domain/automations/automations.js';
import { AUTOMATION_TICK_JOB, executeRun, scheduleDueRuns } from '../../../src/domain/automations/runs.js';
import { create_items } from '../../../src/operations/create_items.js';
import { create_list } from '../../../src/operations/create_list.js';
import { update_list } from '../../../src/operations/update_list.js';
import type { Jobs } from '../../../src/jobs/queue.js';
import { REACH_LOCAL_SERVERS, startLocalServer } from '../../support/net.js';

const log = pino({ level: 'silent' });

describe('automations', () => {
  const { server, ada } = useTestServer({ env: REACH_LOCAL_SERVERS });
  beforeAll(async () => {
    await server.db('users').where({ id: ada.userId }).update({ timezone: 'America/New_York' });
  });

  /** Runs the automation now at `now` (as the job would), returning the ended run. */
  async function runAt(automation: AutomationRow, now: Date, config = server.config): Promise<RunRow> {
    const [run] = (await server
      .db('automation_runs')
      .insert({ automation_id: automation.id, owner_id: ada.userId, trigger: 'manual' })
      .returning('*')) as RunRow[];
    return (await executeRun(server.db, config, run!.id, () => now, log))!;
  }
  const make = (def: object) => createAutomation(server.db, ada.userId, def, new Date());
  const items = (title: string) => server.db('items').where({ owner_id: ada.userId }).where('title', 'like', title);

  describe('actions', () => {
    // Thursday 2026-07-09 22:00 in New York (EDT, UTC-4).
    const now = new Date('2026-07-10T02:00:00Z');

    it('createItems fills {date} with the local date and counts due dates from the local day', async () => {
      const a = await make({
        name: 'Template',
        actions: [
          {
            type: 'createItems',
            items: [
              { title: 'Review {date}', body: 'Made {date}', dueInDays: 1, dueTime: '17:00' },
              { title: 'Plan {date}', dueInDays: 0 },
            ],
          },
        ],
      });
      const run = await runAt(a, now);
      expect(run.outcome).toBe('succeeded');
      expect(run.wrote).toEqual(["Created 2 items on 'Tasks': 'Review 2026-07-09', 'Plan 2026-07-09'."]);
      const [review] = await items('Review 2026-07-09');
      expect(review).toMatchObject({ body: 'Made 2026-07-09', task_status: 'todo', has_due_time: true });
      expect(review.due_at.toISOString()).toBe('2026-07-10T21:00:00.000Z');
      const [plan] = await items('Plan 2026-07-09');
      expect(plan.due_at.toISOString()).toBe('2026-07-09T04:00:00.000Z');
      expect(plan.has_due_time).toBe(false);
      const activity = await server.db('activity').where({ user_id: ada.userId, action: 'items.created' }).orderBy('id', 'desc').first();
      expect(activity).toMatchObject({ via_connection: false, client_name: "automation 'Template'" });
    });

    it('createItems on a list that keeps no due date fails the run, naming the action, and posts why', async () => {
      const a = await make({
        name: 'Wrong list',
        actions: [{ type: 'postDigest' }, { type: 'createItems', listId: 'notes', items: [{ title: 'x', dueInDays: 1 }] }, { type: 'postDigest' }],
      });
      const run = await runAt(a, now);
      expect(run.outcome).toBe('failed');
      expect(run.wrote).toHaveLength(1);
      expect(run.error).toBe("Action 2 (createItems) failed: the list 'Notes' keeps no due date; drop dueInDays or use a tasks list.");
      expect(run.message).toMatch(/stopped early[\s\S]*Nothing after it ran\.$/);
    });

    it('archiveCompleted archives only items completed longer ago than olderThanDays', async () => {
      const made = await create_items(server.context(ada), {
        items: [{ title: 'Done long ago', taskStatus: 'completed' }, { title: 'Done lately', taskStatus: 'completed' }, { title: 'Open old' }],
      });
      const [old, recent, open] = made.items.map((i) => i.id) as [string, string, string];
      await server
        .db('items')
        .where({ id: old })
        .update({ completed_at: new Date(now.getTime() - 40 * 86400000) });
      await server
        .db('items')
        .where({ id: recent })
        .update({ completed_at: new Date(now.getTime() - 5 * 86400000) });
      await server
        .db('items')
        .where({ id: open })
        .update({ created_at: new Date(now.getTime() - 90 * 86400000) });
      const run = await runAt(await make({ name: 'Tidy', actions: [{ type: 'archiveCompleted', olderThanDays: 30, listId: 'tasks' }] }), now);
      expect(run.wrote).toEqual(["Archived 1 item completed more than 30 days ago on 'Tasks': 'Done long ago'."]);
      const archived = await server.db('items').whereIn('id', [old, recent, open]).whereNotNull('archived_at').pluck('id');
      expect(archived).toEqual([old]);
      expect((await runAt(await make({ name: 'Tidy again', actions: [{ type: 'archiveCompleted', olderThanDays: 30 }] }), now)).wrote[0]).toMatch(
        /^Archived nothing/,
      );
    });

    it('rescheduleOverdue moves open overdue tasks to today, keeping a time of day', async () => {
      const made = await create_items(server.context(ada), {
        items: [
          { title: 'Late with time', dueAt: '2026-07-06T13:15:00Z' },
          { title: 'Late all day', dueAt: '2026-07-07' },
          { title: 'Late but done', dueAt: '2026-07-07', taskStatus: 'completed' },
          { title: 'Not late', dueAt: '2026-07-12' },
        ],
      });
      const run = await runAt(await make({ name: 'Catch up', actions: [{ type: 'rescheduleOverdue', to: 'today' }] }), now);
      expect(run.wrote[0]).toMatch(/^Moved 2 overdue tasks to today \(2026-07-09\): 'Late with time', 'Late all day'\.$/);
      const due = async (i: number) => ((await server.db('items').where({ id: made.items[i]!.id }).first()) as { due_at: Date }).due_at.toISOString();
      expect(await due(0)).toBe('2026-07-09T13:15:00.000Z'); // 09:15 EDT kept
      expect(await due(1)).toBe('2026-07-09T04:00:00.000Z'); // start of the local day
      expect(await due(2)).toBe('2026-07-07T04:00:00.000Z');
      expect(await due(3)).toBe('2026-07-12T04:00:00.000Z');
      const tomorrow = await runAt(await make({ name: 'Push', actions: [{ type: 'rescheduleOverdue', to: 'tomorrow' }] }), new Date('2026-07-11T02:00:00Z'));
      expect(tomorrow.wrote[0]).toMatch(/to tomorrow \(2026-07-11\)/);
      expect(await due(0)).toBe('2026-07-11T13:15:00.000Z');
    });

    it('moveOverdue moves open overdue tasks to another list, as move_items does, and refuses to drop values', async () => {
      const fresh = await server.account('Max');
      const fctx = server.context(fresh);
      const someday = await create_list(fctx, { name: 'Someday', template: 'tasks' });
      const made = await create_items(fctx, {
        items: [
          { title: 'Old chore', dueAt: '2026-07-01' },
          { title: 'Future chore', dueAt: '2026-08-01' },
          { title: 'Done chore', dueAt: '2026-07-01', taskStatus: 'completed' },
        ],
      });
      const a = await createAutomation(server.db, fresh.userId, { name: 'Sweep', actions: [{ type: 'moveOverdue', toListId: someday.id }] }, now);
      const [run] = (await server.db('automation_runs').insert({ automation_id: a.id, owner_id: fresh.userId, trigger: 'manual' }).returning('*')) as RunRow[];
      const done = (await executeRun(server.db, server.config, run!.id, () => now, log))!;
      expect(done.wrote).toEqual(["Moved 1 overdue task to 'Someday': 'Old chore'."]);
      const lists = await server
        .db('items')
        .whereIn(
          'id',
          made.items.map((i) => i.id),
        )
        .orderBy('title')
        .pluck('list_id');
      expect(lists).toEqual([made.listId, made.listId, someday.id]); // Done, Future stay; Old moved
      expect(await server.db('activity').where({ user_id: fresh.userId, action: 'items.moved' }).first()).toMatchObject({ client_name: "automation 'Sweep'" });

      // Values that the destination cannot keep: nothing moves, and the run says why.
      const books = await create_list(fctx, { name: 'Reading', properties: [{ name: 'Author', type: 'text' }] });
      await update_list(fctx, { id: someday.id, addProperties: [{ name: 'Effort', type: 'number' }] });
      await create_items(fctx, { listId: someday.id, items: [{ title: 'Heavy', dueAt: '2026-07-02', values: { Effort: 5 } }] });
      const b = await createAutomation(
        server.db,
        fresh.userId,
        { name: 'Lossy', actions: [{ type: 'moveOverdue', listId: someday.id, toListId: books.id }] },
        now,
      );
      const [run2] = (await server.db('automation_runs').insert({ automation_id: b.id, owner_id: fresh.userId, trigger: 'manual' }).returning('*')) as RunRow[];
      const refused = (await executeRun(server.db, server.config, run2!.id, () => now, log))!;
      expect(refused.outcome).toBe('failed');
      expect(refused.error).toMatch(/moving 2 overdue tasks to 'Reading' would drop their values \(Effort\); nothing moved/);
      expect(await server.db('items').where({ list_id: books.id })).toHaveLength(0);
    });

    it("postDigest posts overdue, due-today and upcoming tasks with links to the automation's chat", async () => {
      const fresh = await server.account('Dora');
      await server.db('users').where({ id: fresh.userId }).update({ timezone: 'America/New_York' });
      await create_items(server.context(fresh), {
        items: [
          { title: 'Overdue bill', dueAt: '2026-07-08' },
          { title: 'Dentist', dueAt: '2026-07-09T18:30:00Z' },
          { title: 'Trip', dueAt: '2026-07-11' },
          { title: 'Far away', dueAt: '2026-08-01' },
        ],
      });
      const a = await createAutomation(server.db, fresh.userId, { name: 'Morning digest', actions: [{ type: 'postDigest', daysAhead: 2 }] }, now);
      const [run] = (await server
        .db('automation_runs')
        .insert({ automation_id: a.id, owner_id: fresh.userId, trigger: 'schedule', scheduled_for: now })
        .returning('*')) as RunRow[];
      const done = (await executeRun(server.db, server.config, run!.id, () => now, log))!;
      expect(done.wrote).toEqual(["Posted a digest to the automation's chat: 1 overdue, 1 due today, 1 in the next 2 days."]);
      expect(done.message).toContain('**Morning digest** ran on schedule.');
      expect(done.message).toMatch(/Overdue \(1\):\n- \[Overdue bill\]\(http:\/\/127\.0\.0\.1:\d+\/artifacts\/[0-9a-f-]+\) — was due 2026-07-08 · Tasks/);
      expect(done.message).toMatch(/Due today \(1\):\n- \[Dentist\]\(.+\) — at 14:30 · Tasks/);
      expect(done.message).toMatch(/Next 2 days \(1\):\n- \[Trip\]/);
      expect(done.message).not.toContain('Far away');
      const chat = await server.db('chat_messages').where({ item_id: (await server.db('automations').where({ id: a.id }).first()).chat_item_id });
      expect(chat.map((m: { text: string }) => m.text)).toEqual([done.message]);
    });

    it('webhook POSTs the run as JSON, with the digest when asked', async () => {
      const received: { headers: http.IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
      const hook = await startLocalServer((req, res) => {
        const chunks: Buffer[] = [];
        req
          .on('data', (c: Buffer) => chunks.push(c))
          .on('end', () => {
            received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
            res.writeHead(req.url === '/fail' ? 500 : 202).end();
          });
      });
      const base = hook.url;
      try {
        const a = await make({
          name: 'Notify',
          actions: [
            { type: 'createItems', items: [{ title: 'Hooked {date}' }] },
            { type: 'webhook', url: `${base}/ok`, includeDigest: true },
          ],
        });
        const run = await runAt(a, now);
        expect(run.outcome).toBe('succeeded');
        expect(run.wrote[1]).toBe(`Called the webhook ${base}/ok: HTTP 202.`);
        expect(received[0]!.headers['content-type']).toBe('application/json');
        expect(received[0]!.body).toMatchObject({
          automationId: a.id,
          name: 'Notify',
          runId: run.id,
          trigger: 'manual',
          at: now.toISOString(),
          wrote: [run.wrote[0]],
          digest: { date: '2026-07-09', overdue: expect.any(Array) },
        });
        const failing = await runAt(await make({ name: 'Notify badly', actions: [{ type: 'webhook', url: `${base}/fail` }] }), now);
        expect(failing).toMatchObject({ outcome: 'failed', error: `Action 1 (webhook) failed: the webhook ${base}/fail answered HTTP 500.` });
      } finally {
        await hook.close();
      }
    });

    it.each([
      ['http://example.org/hook', /only https URLs are fetched/],
      ['https://127.0.0.1/hook', /127\.0\.0\.1 is a private, loopback or reserved address/],
      ['https://10.1.2.3/hook', /10\.1\.2\.3 is a private/],
      ['https://[::1]/hook', /::1 is a private/],
      ['https://localhost/hook', /localhost is not allowed: it does not resolve to a public address/],
    ])('webhook to %s is refused without the dev setting (SSRF)', async (url, reason) => {
      const strict = { ...server.config, outboundAllowPrivate: false };
      const run = await runAt(await make({ name: `SSRF ${url}`, actions: [{ type: 'webhook', url }] }), now, strict);
      expect(run.outcome).toBe('failed');
      expect(run.error).toMatch(reason);
    });
  });

  describe('the schedule', () => {
    it('runs a due automation once with two job runners on one database, and not again after a restart', async () => {
      const a = await make({ name: 'Every five minutes', schedule: '*/5 * * * *', actions: [{ type: 'createItems', items: [{ title: 'Scheduled once' }] }] });
      const tick = new Date(Date.now() - 60000);
      await server.db('automations').where({ id: a.id }).update({ next_run_at: tick });
      const pools = [createDb(server.dbUrl, 3), createDb(server.dbUrl, 3)];
      const handled: string[] = [];
      const runners: Jobs[] = [];
      try {
        for (const db of pools) runners.push(await startTestJobs(server, { db, attach: false, onJob: (name) => handled.push(name) }));
        // Both processes tick twice at once, as overlapping cron fires on two servers would.
        await Promise.all(runners.flatMap((r) => [r.send(AUTOMATION_TICK_JOB, {}), r.send(AUTOMATION_TICK_JOB, {})]));
        const run = await waitFor(
          async () =>
            (await server.db('automation_runs').where({ automation_id: a.id }).whereIn('outcome', ['succeeded', 'failed']).first()) as RunRow | undefined,
        );
        await waitFor(async () => (handled.filter((h) => h === AUTOMATION_TICK_JOB).length === 4 ? true : undefined));
        expect(run).toMatchObject({ trigger: 'schedule', outcome: 'succeeded' });
        expect(run.scheduled_for!.toISOString()).toBe(tick.toISOString());
        expect(handled.filter((h) => h === 'automations.run')).toHaveLength(1);
        expect(await items('Scheduled once')).toHaveLength(1);
        const next = ((await server.db('automations').where({ id: a.id }).first()) as AutomationRow).next_run_at!;
        expect(next.getTime()).toBeGreaterThan(Date.now());
        expect(next.getUTCMinutes() % 5).toBe(0);
      } finally {
        await Promise.all(runners.map((r) => r.stop()));
      }
      // A restarted process ticks again: the next run is in the future, so nothing runs.
      const restarted = await startTestJobs(server, { db: pools[0], attach: false, onJob: (name) => handled.push(name) });
      try {
        await restarted.send(AUTOMATION_TICK_JOB, {});
        await waitFor(async () => (handled.filter((h) => h === AUTOMATION_TICK_JOB).length === 5 ? true : undefined));
        expect(await server.db('automation_runs').where({ automation_id: a.id })).toHaveLength(1);
      } finally {
        await restarted.stop();
        await Promise.all(pools.map((p) => p.destroy()));
      }
    });

    it('skips paused and draft automations, and records a scheduled run past the daily limit as not run', async () => {
      const past = new Date(Date.now() - 1000);
      const paused = await make({ name: 'Paused', status: 'paused', schedule: '* * * * *', actions: [{ type: 'postDigest' }] });
      const limited = await make({ name: 'Limited', schedule: '* * * * *', actions: [{ type: 'postDigest' }] });
      await server.db('automations').whereIn('id', [paused.id, limited.id]).update({ next_run_at: past });
      await server.db('automation_runs').insert({ automation_id: limited.id, owner_id: ada.userId, trigger: 'manual', outcome: 'succeeded' });
      const fakeJobs = {
        sent: 0,
        send: async () => null,
        sendInTransaction: async () => {
          fakeJobs.sent++;
          return null;
        },
        stop: async () => undefined,
      };
      const queued = await scheduleDueRuns(server.db, fakeJobs, { ...server.config, automationDailyRunLimit: 1 }, new Date(), log);
      expect(queued).toEqual([]);
      expect(fakeJobs.sent).toBe(0);
      expect(await server.db('automation_runs').where({ automation_id: paused.id })).toHaveLength(0);
      const skipped = (await server.db('automation_runs').where({ automation_id: limited.id, trigger: 'schedule' }).first()) as RunRow;
      expect(skipped).toMatchObject({ outcome: 'failed', error: 'Not run: the daily limit of 1 runs was reached.' });
    });

    it('ends a run cut off by a stopped process, so the automation can run again', async () => {
      const a = await make({ name: 'Cut off', actions: [{ type: 'postDigest' }] });
      const [stale] = (await server
        .db('automation_runs')
        .insert({ automation_id: a.id, owner_id: ada.userId, trigger: 'manual', outcome: 'running', started_at: new Date(Date.now() - 20 * 60000) })
        .returning('*')) as RunRow[];
      await scheduleDueRuns(
        server.db,
        { send: async () => null, sendInTransaction: async () => null, stop: async () => undefined },
        server.config,
        new Date(),
        log,
      );
      expect(await server.db('automation_runs').where({ id: stale!.id }).first()).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/cut off/) });
    });
  });

  describe('definitions', () => {
    it.each([
      [{ actions: [{ type: 'postDigest' }] }, /name must be a non-empty string/],
      [{ name: 'x', actions: [] }, /actions must be a list of 1 to 20/],
      [
        { name: 'x', actions: [{ type: 'sendEmail' }] },
        /actions\[0\]\.type must be one of createItems, archiveCompleted, rescheduleOverdue, moveOverdue, postDigest, webhook; received "sendEmail"/,
      ],
      [{ name: 'x', actions: [{ type: 'archiveCompleted' }] }, /actions\[0\] \(archiveCompleted\) does not match its schema/],
      [{ name: 'x', schedule: 'every monday', actions: [{ type: 'postDigest' }] }, /must have five fields/],
      [{ name: 'x', schedule: '61 * * * *', actions: [{ type: 'postDigest' }] }, /is not a cron expression/],
      [{ name: 'x', status: 'on', actions: [{ type: 'postDigest' }] }, /status must be active, paused or draft/],
      [{ name: 'x', colour: 'red', actions: [{ type: 'postDigest' }] }, /Unknown field 'colour'/],
    ])('refuses %j', (def, message) => {
      expect(() => checkDefinition(def)).toThrow(message);
    });

    it('fills defaults: active, on demand, a description from the actions; keeps the actions as written', () => {
      expect(checkDefinition({ name: ' Digest ', actions: [{ type: 'postDigest' }, { type: 'webhook', url: 'https://hooks.example.org/x' }] })).toEqual({
        name: 'Digest',
        status: 'active',
        schedule: null,
        description: 'Posts a digest of overdue and due tasks, then calls the webhook hooks.example.org.',
        actions: [{ type: 'postDigest' }, { type: 'webhook', url: 'https://hooks.example.org/x' }],
      });
    });
  });
});
