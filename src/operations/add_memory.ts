import type { Handler } from '../core/context.js';
import { addMemory, memoryDto } from '../domain/accounts/memory.js';
import { recordActivity } from '../domain/changes/activity.js';

/**
 * The person adds a line to what agents read about them (get_context's memory).
 * @see openapi/openapi.yaml x-person-paths /person/memory
 */
export const add_memory: Handler<'add_memory'> = async ({ db, principal }, input) =>
  db.transaction(async (trx) => {
    const row = await addMemory(trx, principal.userId, input.text);
    await recordActivity(trx, principal, { action: 'memory.added', summary: `Remembered '${row.text}'` });
    return memoryDto(row);
  });
