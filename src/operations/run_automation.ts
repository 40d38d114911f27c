import type { Handler } from '../core/context.js';
import { startManualRun } from '../domain/automations/runs.js';

/**
 * POST /automations/{id}/run: queues a run on the durable job queue and answers at once; the
 * run's result lands in the automation's chat. Refused (409) for a draft, while a run is
 * open, and past the daily run limit.
 */
export const run_automation: Handler<'run_automation'> = async ({ db, principal, services, config }, input) => {
  const { automation, run } = await startManualRun(db, services.jobs, config, principal.userId, input.id, services.now());
  return { id: automation.id, name: automation.name, runId: run.id, status: automation.status as 'active' | 'paused' };
};
