import type { Handler } from '../core/context.js';
import { revokeAppPassword } from '../domain/accounts/app-passwords.js';

/**
 * The person revokes one app password; the client using it is refused from its next request.
 * @see openapi/openapi.yaml x-person-paths /person/app-passwords/{id}
 */
export const revoke_app_password: Handler<'revoke_app_password'> = async ({ db, principal }, input) => ({
  revoked: await revokeAppPassword(db, principal.userId, input.id),
});
