import type { Handler } from '../core/context.js';
import { revokeApiKey } from '../domain/accounts/api-keys.js';

/**
 * The person revokes their API key; the event subscriptions it made end with it.
 * @see openapi/openapi.yaml x-person-paths /person/api-key
 */
export const revoke_api_key: Handler<'revoke_api_key'> = async ({ db, principal }) => ({ revoked: await revokeApiKey(db, principal.userId) });
