import type { Handler } from '../core/context.js';
import { automationDto, lastRuns, setStatus, timeZoneOf } from '../domain/automations/automations.js';
import { recordActivity } from '../domain/changes/activity.js';

/**
 * The person pauses an automation or makes it active again (its next scheduled run counted from now).
 * @see openapi/openapi.yaml x-person-paths /person/automations/{id}
 */
export const set_automation_status: Handler<'set_automation_status'> = async ({ db, principal, services }, input) =>
  db.transaction(async (trx) => {
    const row = await setStatus(trx, principal.userId, input.id, input.status, services.now());
    await recordActivity(trx, principal, {
      action: input.status === 'paused' ? 'automation.paused' : 'automation.resumed',
      summary: input.status === 'paused' ? `Paused the automation '${row.name}'` : `Made the automation '${row.name}' active`,
    });
    return automationDto(row, await timeZoneOf(trx, principal.userId), (await lastRuns(trx, [row.id])).get(row.id));
  });
