import type { Handler } from '../core/context.js';
import { getUser } from '../domain/accounts/accounts.js';
import { createItems } from '../domain/items/create.js';
import { discardUnattached, downloadImages } from '../domain/media/images.js';

/**
 * POST /items: images are downloaded first (outside the transaction: they may take seconds),
 * then the domain creates the entries in one transaction; downloads the write did not attach
 * in the end (or all of them, if it rolled back) are deleted again.
 */
export const create_items: Handler<'create_items'> = async (ctx, input) => {
  const { db, principal, services } = ctx;
  const user = await getUser(db, principal.userId);
  const now = services.now();
  const downloads = await downloadImages(
    ctx,
    input.items.flatMap((e) => e.imageUrls ?? []),
  );
  const attached = new Set<string>();
  let committed = false;
  try {
    const output = await db.transaction((trx) => createItems(ctx, trx, input, { timeZone: user.timezone, now, downloads, attached }));
    committed = true;
    return output;
  } finally {
    if (downloads.size) await discardUnattached(ctx, downloads, committed ? attached : new Set());
  }
};
