import type { Handler } from '../core/context.js';
import { automationDto, createAutomation, timeZoneOf } from '../domain/automations/automations.js';
import { recordActivity } from '../domain/changes/activity.js';

/**
 * The person creates an automation from its definition (the Settings page's YAML, the command
 * line's file); the domain checks it and names the first problem.
 * @see openapi/openapi.yaml x-person-paths /person/automations
 */
export const create_automation: Handler<'create_automation'> = async ({ db, principal, services }, input) =>
  db.transaction(async (trx) => {
    const row = await createAutomation(trx, principal.userId, input.definition, services.now());
    await recordActivity(trx, principal, { action: 'automation.created', summary: `Created the automation '${row.name}' (${row.status})` });
    return automationDto(row, await timeZoneOf(trx, principal.userId), undefined);
  });
