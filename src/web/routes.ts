/**
 * The web pages: sign-up, sign-in, the OAuth consent screen at /oauth/consent, and
 * Settings → Connections (the API key, connected apps). Server-rendered forms, no
 * JavaScript, CSRF-checked; sessions in Postgres (src/web/sessions.ts).
 * @see docs/auth.md
 */
import type { Middleware } from 'koa';
import Router from '@koa/router';
import { registerConnections } from './connections.js';
import { registerConsent } from './consent.js';
import { pageKit, type WebDeps } from './page-kit.js';
import { registerSignIn } from './sign-in.js';

export { CONNECTIONS_PATH } from './connections.js';
export type { WebDeps } from './page-kit.js';

/** The web pages as koa middleware. */
export function webRoutes(deps: WebDeps): Middleware {
  const router = new Router();
  const kit = pageKit(deps);
  registerSignIn(router, kit);
  registerConsent(router, kit);
  registerConnections(router, kit);
  return router.routes() as Middleware;
}
