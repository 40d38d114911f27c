import type { Handler } from '../core/context.js';
import { automationDto, getAutomation, latestRuns, runPage, timeZoneOf } from '../domain/automations/automations.js';
import { iso } from '../domain/time.js';

/** GET /automations/{id}/runs: the automation and its runs, newest first, a page at a time. */
export const get_automation_runs: Handler<'get_automation_runs'> = async ({ db, principal }, input) => {
  const automation = await getAutomation(db, principal.userId, input.id);
  const page = await runPage(db, automation.id, input.limit ?? 5, input.cursor);
  // The automation's last run is the newest of all, not of this page when it continues a cursor.
  const last = input.cursor === undefined ? page.runs[0] : (await latestRuns(db, automation.id, 1))[0];
  return {
    automation: automationDto(automation, await timeZoneOf(db, principal.userId), last),
    runs: page.runs.map((r) => ({
      runId: r.id,
      trigger: r.trigger,
      startedAt: (r.started_at ?? r.created_at).toISOString(),
      finishedAt: iso(r.finished_at),
      outcome: r.outcome,
      wrote: r.wrote,
      message: r.message,
      error: r.error,
    })),
    hasMore: page.hasMore,
    nextCursor: page.nextCursor,
  };
};
