/**
 * The durable job queue for tests: pg-boss on the test database with the service's job
 * definitions, cron schedules left out so a test decides when a tick happens. The queue is
 * also handed to the server's services, so REST and MCP calls enqueue on it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import type { Knex } from 'knex';
import { startJobs, type Jobs } from '../../src/jobs/queue.js';
import { jobDefinitions } from '../../src/jobs/definitions.js';
import type { TestServer } from './server.js';

/** Starts a job runner on the server's database (its own pool when `db` is given, as a second process would). */
export async function startTestJobs(server: TestServer, options: { db?: Knex; attach?: boolean; onJob?: (name: string) => void } = {}): Promise<Jobs> {
  const log = pino({ level: 'silent' });
  const db = options.db ?? server.db;
  const definitions = jobDefinitions({ db, log, now: () => server.services.now(), config: server.config }).map((d) => ({
    ...d,
    schedule: undefined,
    handler: async (data: object, job: Parameters<typeof d.handler>[1]) => {
      options.onJob?.(d.name);
      await d.handler(data, job);
    },
  }));
  const jobs = await startJobs(server.dbUrl, definitions, log);
  if (options.attach ?? true) server.services.jobs = jobs;
  return jobs;
}

/** Waits until `check` returns a value (not undefined), polling; fails after `ms`. */
export async function waitFor<T>(check: () => Promise<T | undefined>, ms = 15000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await sleep(100);
  }
}
