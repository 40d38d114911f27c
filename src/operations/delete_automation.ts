import type { Handler } from '../core/context.js';
import { deleteAutomation } from '../domain/automations/automations.js';
import { recordActivity } from '../domain/changes/activity.js';

/**
 * The person deletes an automation and its runs; its chat item stays on the Notes list.
 * @see openapi/openapi.yaml x-person-paths /person/automations/{id}
 */
export const delete_automation: Handler<'delete_automation'> = async ({ db, principal }, input) =>
  db.transaction(async (trx) => {
    const row = await deleteAutomation(trx, principal.userId, input.id);
    await recordActivity(trx, principal, { action: 'automation.deleted', summary: `Deleted the automation '${row.name}'` });
    return { deleted: true as const, id: row.id, name: row.name };
  });
