import type { Handler } from '../core/context.js';
import { memoryDto, removeMemory } from '../domain/accounts/memory.js';
import { recordActivity } from '../domain/changes/activity.js';

/**
 * The person removes a line of their memory.
 * @see openapi/openapi.yaml x-person-paths /person/memory/{id}
 */
export const remove_memory: Handler<'remove_memory'> = async ({ db, principal }, input) =>
  db.transaction(async (trx) => {
    const row = await removeMemory(trx, principal.userId, input.id);
    await recordActivity(trx, principal, { action: 'memory.removed', summary: `Forgot '${row.text}'` });
    return memoryDto(row);
  });
