/**
 * The enrich pass (`enrich: true` on a tasks list).
 * Not built yet: it arrives with the enrich issue; until then the request is noted on the
 * item's guidance so an agent sees that no pass ran.
 */
import type { Knex } from 'knex';
import type { OperationContext } from '../operations/types.js';

export async function enqueueEnrich(_ctx: OperationContext, trx: Knex, itemIds: string[]): Promise<void> {
  await trx('items').whereIn('id', itemIds).update({ guidance_note: 'Enrich was requested, but this server does not run the enrich pass yet.' });
}
