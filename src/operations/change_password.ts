import type { Handler } from '../core/context.js';
import { changePassword, setUserPassword } from '../domain/accounts/passwords.js';
import { invalid } from '../core/errors.js';

/**
 * The person's new web sign-in password; every web session ends. On the web pages the present
 * password must come with it; the command line (the server's database in hand) sets it without.
 * A wrong present password is refused on `current`, so the page counts it as a failed sign-in.
 * @see openapi/openapi.yaml x-person-paths /person/password
 */
export const change_password: Handler<'change_password'> = async ({ db, principal }, input) => {
  if (input.current === undefined) {
    if (principal.via !== 'cli') throw invalid('Enter your current password to choose a new one.', 'current');
    await setUserPassword(db, principal.userId, input.password);
    return { changed: true as const };
  }
  const refused = await changePassword(db, principal.userId, input.current, input.password);
  if (refused) throw invalid(refused.message, refused.reason === 'wrong-current' ? 'current' : 'password');
  return { changed: true as const };
};
