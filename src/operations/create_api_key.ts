import type { Handler } from '../core/context.js';
import { createApiKey } from '../domain/accounts/api-keys.js';
import { keyGrant } from '../domain/accounts/grants.js';
import { resolveList } from '../domain/lists/lists.js';

/**
 * The person mints their API key (shown once); a key they had stops working. With `access`
 * or `lists` the key holds that grant. Not in the activity log, like the other credentials and
 * subscriptions (it changes no list or item).
 * @see openapi/openapi.yaml x-person-paths /person/api-key
 */
export const create_api_key: Handler<'create_api_key'> = async ({ db, principal }, input) => {
  const lists = input.lists ? await Promise.all(input.lists.map(async (id) => (await resolveList(db, principal.userId, id)).id)) : null;
  const grant = keyGrant(input.access ?? 'all', lists, input.laterLists ?? false);
  return { key: await createApiKey(db, principal.userId, grant) };
};
