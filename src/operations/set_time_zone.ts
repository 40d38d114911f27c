import type { Handler } from '../core/context.js';
import { setTimeZone } from '../domain/accounts/accounts.js';

/**
 * The person's time zone, which dates, reminders, activity and automations follow.
 * @see openapi/openapi.yaml x-person-paths /person/time-zone
 */
export const set_time_zone: Handler<'set_time_zone'> = async ({ db, principal }, input) => {
  const timezone = input.timezone.trim();
  await setTimeZone(db, principal.userId, timezone);
  return { timezone };
};
