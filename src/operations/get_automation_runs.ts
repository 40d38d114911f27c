import type { Handler } from '../core/context.js';
import { automationDto, getAutomation, latestRuns, timeZoneOf } from '../domain/automations/automations.js';
import { iso } from '../domain/time.js';

/** GET /automations/{id}/runs: the automation and its latest runs, newest first. */
export const get_automation_runs: Handler<'get_automation_runs'> = async ({ db, principal }, input) => {
  const automation = await getAutomation(db, principal.userId, input.id);
  const runs = await latestRuns(db, automation.id, input.limit ?? 5);
  return {
    automation: automationDto(automation, await timeZoneOf(db, principal.userId), runs[0]),
    runs: runs.map((r) => ({
      runId: r.id,
      trigger: r.trigger,
      startedAt: (r.started_at ?? r.created_at).toISOString(),
      finishedAt: iso(r.finished_at),
      outcome: r.outcome,
      wrote: r.wrote,
      message: r.message,
      error: r.error,
    })),
  };
};
