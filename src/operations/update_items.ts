import type { Handler } from '../core/context.js';
import { getUser } from '../domain/accounts/accounts.js';
import { rememberOutline } from '../domain/body/outlines.js';
import { discardUnattached, downloadImages } from '../domain/media/images.js';
import { linkRoots } from '../domain/items/urls.js';
import { refusalError, updateItems, updateSettings, type UpdateOutcome } from '../domain/items/update.js';

/**
 * PATCH /items: up to 200 items, written in order in one transaction (src/domain/items/update.ts).
 * A refusal stops the batch: the items before it stay written and are named in the error's
 * `details`. Images are downloaded before the transaction; those not attached in the end are
 * deleted again.
 */
export const update_items: Handler<'update_items'> = async (ctx, input) => {
  const { db, principal, services, config } = ctx;
  const user = await getUser(db, principal.userId);
  const settings = updateSettings(input, user.timezone, services.now());
  const downloads = await downloadImages(
    ctx,
    input.items.flatMap((e) => e.imageUrls ?? []),
  );
  const attached = new Set<string>();
  let outcome: UpdateOutcome;
  try {
    outcome = await db.transaction((trx) => updateItems(ctx, trx, input, { ...settings, now: services.now(), downloads, attached }));
  } catch (err) {
    if (downloads.size) await discardUnattached(ctx, downloads, new Set());
    throw err;
  }
  // Downloads for entries after a refusal, or that failed to attach, are deleted.
  if (downloads.size) await discardUnattached(ctx, downloads, attached);
  // The new versions of long bodies edited by block are parsed in memory: keep their outlines
  // for other processes. Not awaited, and a failure only costs a later parse.
  for (const item of outcome.written) if (item.body && 'applied' in item) void rememberOutline(db, item.id, item.body).catch(() => undefined);
  if (outcome.refusal) throw refusalError(outcome.refusal, outcome.written);
  const { written, imagesAttached, imageFailures } = outcome;
  return { updated: written.length, items: written, imagesAttached, imageFailures, links: linkRoots(config) };
};
