/**
 * Every job the service runs, in one list: what main.ts starts and what tests start.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { JobDefinition } from './queue.js';
import { purgeExpired } from '../domain/trash/trash.js';
import { removeExpiredUploads } from '../domain/media/storage.js';
import { loadConfig, type Config } from '../core/config.js';
import { webhookJob, type WebhookSettings } from './webhooks.js';
import { notificationJob } from './notifications.js';
import { IMPORT_JOB } from '../domain/transfer/imports.js';
import { runImport } from '../domain/transfer/import-run.js';
import { AUTOMATION_RUN_JOB, AUTOMATION_TICK_JOB, executeRun, scheduleDueRuns } from '../domain/automations/runs.js';

export const PURGE_JOB = 'trash.purge';
export const UPLOADS_CLEANUP_JOB = 'uploads.cleanup';

export interface JobDeps {
  db: Knex;
  log: Logger;
  now(): Date;
  config: Config;
}

/** Webhook delivery settings from the configuration (its defaults when none is given). */
export function webhookSettings(config: Config = loadConfig({})): WebhookSettings {
  return { allowPrivate: config.outboundAllowPrivate, retryBaseSeconds: config.webhookRetryBaseSeconds, timeoutMs: config.webhookTimeoutMs };
}

/** The job definitions of the service. */
export function jobDefinitions(deps: JobDeps): JobDefinition[] {
  return [
    {
      name: PURGE_JOB,
      // Every 15 minutes; pg-boss fires a schedule once per tick across all processes.
      schedule: { cron: '*/15 * * * *' },
      queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
      async handler() {
        const purged = await purgeExpired(deps.db, deps.now());
        if (purged.items + purged.lists > 0) deps.log.info(purged, 'purged expired trash');
      },
    },
    {
      name: UPLOADS_CLEANUP_JOB,
      // Hourly: upload slots a day past their URL's expiry, and the files no item attached.
      schedule: { cron: '7 * * * *' },
      queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
      async handler() {
        const removed = await removeExpiredUploads(deps.db, deps.config, deps.now(), deps.log);
        if (removed.slots > 0) deps.log.info(removed, 'removed expired upload slots');
      },
    },
    webhookJob({ db: deps.db, log: deps.log, now: deps.now, settings: webhookSettings(deps.config) }) as JobDefinition,
    notificationJob(deps) as JobDefinition,
    {
      name: AUTOMATION_TICK_JOB,
      // Every minute: queues the runs of automations whose cron time came (once across processes).
      schedule: { cron: '* * * * *' },
      queue: { retryLimit: 0 },
      async handler(_data, job) {
        if (!job.jobs) throw new Error('the automation tick needs the job queue to enqueue runs');
        const queued = await scheduleDueRuns(deps.db, job.jobs, deps.config, deps.now(), deps.log);
        if (queued.length) deps.log.info({ runs: queued }, 'queued scheduled automation runs');
      },
    },
    {
      name: AUTOMATION_RUN_JOB,
      // A run is claimed before it starts, so a retry after a crash does not run it twice.
      queue: { retryLimit: 2, retryDelay: 30 },
      async handler(data) {
        await executeRun(deps.db, deps.config, (data as { runId: string }).runId, deps.now, deps.log);
      },
    },
    {
      name: IMPORT_JOB,
      // The import is claimed before it starts and each list records its outcome as it lands,
      // so a retry after a crash goes on where the last one stopped; one stopped with its process
      // is queued again and fails the job, whose retry goes on 30 s later.
      queue: { retryLimit: 2, retryDelay: 30, expireInSeconds: 3600 },
      async handler(data, job) {
        await runImport(deps, (data as { importId: string }).importId, job.signal);
      },
    },
  ];
}
