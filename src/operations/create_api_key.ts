import type { Handler } from '../core/context.js';
import { createApiKey } from '../domain/accounts/api-keys.js';

/**
 * The person mints their API key (shown once); a key they had stops working. Not in the
 * activity log, like the other credentials and subscriptions (it changes no list or item).
 * @see openapi/openapi.yaml x-person-paths /person/api-key
 */
export const create_api_key: Handler<'create_api_key'> = async ({ db, principal }) => ({ key: await createApiKey(db, principal.userId) });
