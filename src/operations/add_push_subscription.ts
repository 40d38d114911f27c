import type { Handler } from '../core/context.js';
import { addPushSubscription, checkPushEndpoint, saveSettings } from '../domain/notifications/settings.js';

/**
 * The person turns push on in a browser: its subscription is kept, and push is on.
 * @see openapi/openapi.yaml x-person-paths /person/notifications/push
 */
export const add_push_subscription: Handler<'add_push_subscription'> = async ({ db, config, principal }, input) => {
  const endpoint = await checkPushEndpoint(input.endpoint, config.outboundAllowPrivate);
  const id = await addPushSubscription(db, principal.userId, {
    endpoint,
    p256dh: input.keys.p256dh,
    auth: input.keys.auth,
    browser: input.browser?.trim() || null,
  });
  await saveSettings(db, principal.userId, { pushOn: true });
  return { id };
};
