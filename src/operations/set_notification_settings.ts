import type { Handler } from '../core/context.js';
import { readSettingsChange, saveSettings } from '../domain/notifications/settings.js';

/**
 * The person sets how their notifications reach them. Not in the activity log, like their
 * other account settings (it changes no list or item).
 * @see openapi/openapi.yaml x-person-paths /person/notifications
 */
export const set_notification_settings: Handler<'set_notification_settings'> = async ({ db, config, principal }, input) => {
  const change = await readSettingsChange(db, principal.userId, input, { mailServer: config.smtp !== null, allowPrivate: config.outboundAllowPrivate });
  const saved = await saveSettings(db, principal.userId, change);
  const { emailKinds, ...rest } = saved;
  return { ...rest, emailReminders: emailKinds.reminder, emailQuestions: emailKinds.question };
};
