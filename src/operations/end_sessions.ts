import type { Handler } from '../core/context.js';
import { endSessionsOf } from '../domain/accounts/sessions.js';

/**
 * Signs the person out of every browser; connected apps and the API key keep working.
 * @see openapi/openapi.yaml x-person-paths /person/sessions
 */
export const end_sessions: Handler<'end_sessions'> = async ({ db, principal }) => ({ ended: await endSessionsOf(db, principal.userId) });
