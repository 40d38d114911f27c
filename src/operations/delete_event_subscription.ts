import type { Handler } from '../core/context.js';
import { removeSubscription } from '../domain/changes/subscriptions.js';
import { notFound } from '../core/errors.js';

/** DELETE /event-subscriptions?id=: removes one subscription; nothing more is sent to it. */
export const delete_event_subscription: Handler<'delete_event_subscription'> = async (ctx, input) => {
  if (!(await removeSubscription(ctx.db, ctx.principal.userId, input.id))) {
    throw notFound(`No event subscription ${input.id} of yours; list_event_subscriptions shows them.`);
  }
  return { deleted: true, id: input.id };
};
