import type { Handler } from '../core/context.js';
import { createAppPassword } from '../domain/accounts/app-passwords.js';

/**
 * The person makes a password for one CalDAV client, shown once. Not in the activity log,
 * like the API key.
 * @see openapi/openapi.yaml x-person-paths /person/app-passwords
 */
export const create_app_password: Handler<'create_app_password'> = async ({ db, principal }, input) => {
  const name = input.name.trim();
  const made = await createAppPassword(db, principal.userId, name);
  return { id: made.id, name, password: made.password };
};
