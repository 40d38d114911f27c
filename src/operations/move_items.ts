import type { Handler } from '../core/context.js';
import { moveItems } from '../domain/items/move.js';

/** POST /items/move: one transaction around the domain's move (src/domain/items/move.ts). */
export const move_items: Handler<'move_items'> = async ({ db, principal, services }, input) => {
  const now = services.now();
  return db.transaction((trx) => moveItems(trx, principal, input, now));
};
