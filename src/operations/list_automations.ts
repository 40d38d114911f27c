import type { Handler } from '../core/context.js';
import { automationDto, lastRuns, listAutomations, timeZoneOf } from '../domain/automations/automations.js';

/** GET /automations: the person's automations, each with its next run and how its last run ended. */
export const list_automations: Handler<'list_automations'> = async ({ db, principal }) => {
  const rows = await listAutomations(db, principal.userId);
  const [timeZone, last] = await Promise.all([
    timeZoneOf(db, principal.userId),
    lastRuns(
      db,
      rows.map((r) => r.id),
    ),
  ]);
  return { count: rows.length, automations: rows.map((r) => automationDto(r, timeZone, last.get(r.id))) };
};
