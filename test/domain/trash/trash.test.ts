/** The purge: a durable scheduled job that deletes expired trash for good, once across processes. */
import { describe, it, expect } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { useTestServer } from '../../support/server.js';
import { create_items } from '../../../src/operations/create_items.js';
import { delete_items } from '../../../src/operations/delete_items.js';
import { startJobs, type Jobs } from '../../../src/jobs/queue.js';
import { jobDefinitions, PURGE_JOB } from '../../../src/jobs/definitions.js';
import { createDb } from '../../../src/store/db.js';

describe('trash purge', () => {
  // A retention of one second stands in for thirty days.
  const { server, ada } = useTestServer({ env: { TRASH_RETENTION_DAYS: String(1 / 86400) } });

  it('purges expired trash through the queue exactly once with two processes running it', async () => {
    const log = pino({ level: 'silent' });
    const made = await create_items(server.context(ada), { items: [{ title: 'old' }, { title: 'keep' }] });
    await delete_items(server.context(ada), { itemIds: [made.items[0]!.id] });
    await sleep(1100);
    const url = server.dbUrl;
    // Each "process" has its own pool and its own pg-boss, as two servers on one database would.
    const pools = [createDb(url, 2), createDb(url, 2)];
    let runs = 0;
    const runners: Jobs[] = [];
    for (const db of pools) {
      const defs = jobDefinitions({ db, log, now: () => new Date(), config: server.config }).map((d) => ({
        ...d,
        schedule: undefined,
        handler: async (data: object, job: { id: string; retryCount: number }) => {
          runs++;
          await d.handler(data, job);
        },
      }));
      runners.push(await startJobs(url, defs, log));
    }
    try {
      await runners[0]!.send(PURGE_JOB, {});
      for (let i = 0; i < 50 && (await server.db('items').where({ id: made.items[0]!.id }).first()); i++) await sleep(200);
      await sleep(1500);
      expect(await server.db('items').where({ id: made.items[0]!.id }).first()).toBeUndefined();
      expect(await server.db('items').where({ id: made.items[1]!.id }).first()).toBeDefined();
      expect(runs).toBe(1);
    } finally {
      await Promise.all(runners.map((r) => r.stop()));
      await Promise.all(pools.map((p) => p.destroy()));
    }
  });

  it('schedules the purge every 15 minutes', () => {
    const purge = jobDefinitions({ db: server.db, log: pino({ level: 'silent' }), now: () => new Date(), config: server.config }).find(
      (d) => d.name === PURGE_JOB,
    );
    expect(purge?.schedule).toEqual({ cron: '*/15 * * * *' });
  });
});
