/**
 * The person's web app, server-rendered: sign-in and sign-up, the OAuth consent screen, the
 * lists and their views, items, search, the trash, activity, the conversation, and Settings
 * (connections, account, notifications, phone and calendar apps, automations, memory, your data). Every page reads without
 * JavaScript and every write is a plain form, CSRF-checked, that calls the same operations as
 * REST and MCP; htmx and src/web/static/app.js only make it quicker. Sessions live in Postgres
 * (src/web/sessions.ts).
 * @see docs/auth.md
 */
import type { Middleware } from 'koa';
import Router from '@koa/router';
import { registerActivity } from './activity.js';
import { registerConnections } from './connections.js';
import { registerConsent } from './consent.js';
import { registerSettingsPages } from './automations.js';
import { registerDataPages } from './data.js';
import { registerFindPages } from './find.js';
import { registerItemPages } from './items.js';
import { registerListPages } from './lists.js';
import { setPageHeaders } from './html.js';
import { pageKit, type WebDeps } from './page-kit.js';
import { registerSettings } from './settings.js';
import { registerSignIn } from './sign-in.js';
import { registerNotifications } from './notifications.js';
import { registerUnsubscribe } from './unsubscribe.js';
import { registerCalendarApps } from './calendar-apps.js';

export { CONNECTIONS_PATH } from './connections.js';
export type { WebDeps } from './page-kit.js';

/** The web pages as koa middleware. */
export function webRoutes(deps: WebDeps): Middleware {
  const router = new Router();
  const kit = pageKit(deps);
  // Set before the handler runs, so no answer of these routes goes without them (a page may narrow them).
  router.use(function withPageHeaders(ctx, next) {
    setPageHeaders(ctx, kit.fileOrigins);
    return next();
  });
  registerSignIn(router, kit);
  registerConsent(router, kit);
  registerConnections(router, kit);
  registerSettings(router, kit);
  registerNotifications(router, kit);
  registerUnsubscribe(router, kit);
  registerCalendarApps(router, kit);
  registerSettingsPages(router, kit);
  registerDataPages(router, kit);
  registerItemPages(router, kit);
  registerListPages(router, kit);
  registerFindPages(router, kit);
  registerActivity(router, kit);
  return router.routes() as Middleware;
}
