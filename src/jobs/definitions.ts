/**
 * Every job the service runs, in one list: what main.ts starts and what tests start.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { JobDefinition } from './queue.js';
import { purgeExpired } from '../domain/trash.js';
import { loadConfig, type Config } from '../config.js';
import { webhookJob, type WebhookSettings } from './webhooks.js';

export const PURGE_JOB = 'trash.purge';

export interface JobDeps { db: Knex; log: Logger; now(): Date; config?: Config }

/** Webhook delivery settings from the configuration (its defaults when none is given). */
export function webhookSettings(config: Config = loadConfig({})): WebhookSettings {
  return { allowPrivate: config.webhooksAllowPrivate, retryBaseSeconds: config.webhookRetryBaseSeconds, timeoutMs: config.webhookTimeoutMs };
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
    webhookJob({ db: deps.db, log: deps.log, now: deps.now, settings: webhookSettings(deps.config) }) as JobDefinition,
  ];
}
