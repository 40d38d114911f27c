import type { Handler } from '../core/context.js';
import { removePushSubscription } from '../domain/notifications/settings.js';

/**
 * The person stops pushes to one of their browsers.
 * @see openapi/openapi.yaml x-person-paths /person/notifications/push/{id}
 */
export const remove_push_subscription: Handler<'remove_push_subscription'> = async ({ db, principal }, input) => ({
  removed: await removePushSubscription(db, principal.userId, { id: input.id }),
});
