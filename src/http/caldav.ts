/**
 * CalDAV (RFC 4791) at /dav, discovered from /.well-known/caldav: the person's task lists as
 * VTODO collections for a phone's task app, with ETags and sync tokens (RFC 6578). The protocol
 * is caldav-adapter's (Forward Email's maintained koa middleware); src/http/caldav-store.ts
 * answers its questions from src/domain/caldav/, and every write a client makes is an item
 * operation (create_items, update_items, delete_items) called through `invoke`, as REST and
 * MCP call them. The credential is HTTP Basic with an app password or the API key.
 * @see docs/caldav.md
 */
import type { Context, Middleware, Next } from 'koa';
import caldavAdapter from 'caldav-adapter';
import { ApiError } from '../core/errors.js';
import { basicPrincipal } from '../auth/basic.js';
import { getUser } from '../domain/accounts/accounts.js';
import { TodoError } from '../domain/caldav/vtodo-read.js';
import { DavRefusal } from './caldav-writes.js';
import { DAV_ROOT, DavStore, type CaldavDeps, type DavUser } from './caldav-store.js';
import { reachOf } from '../domain/accounts/grants.js';

export { DAV_ROOT, type CaldavDeps };

/** The CalDAV middleware: answers /.well-known/caldav and everything under /dav, passes the rest on. */
export function caldav(deps: CaldavDeps): Middleware {
  const adapter = caldavAdapter({
    caldavRoot: DAV_ROOT,
    calendarRoot: 'cal',
    principalRoot: 'p',
    authRealm: 'listkeeper',
    async authenticate(_ctx, { username, password, principalId }): Promise<DavUser | null> {
      const principal = await basicPrincipal(deps, username, password);
      if (!principal || (principalId && principalId !== principal.userId)) return null;
      const user = await getUser(deps.db, principal.userId);
      const reach = await reachOf(deps.db, principal);
      return {
        principalId: principal.userId,
        principalName: user.name || user.email,
        email: user.email,
        principal,
        timeZone: user.timezone,
        ...(reach ? { reach } : {}),
      };
    },
    data: new DavStore(deps),
  });

  return async function serveCaldav(ctx: Context, next: Next): Promise<void> {
    if (ctx.path.toLowerCase() !== '/.well-known/caldav' && ctx.path !== DAV_ROOT && !ctx.path.startsWith(`${DAV_ROOT}/`)) return next();
    try {
      await adapter(ctx, next);
    } catch (err) {
      const refusal = davRefusal(err);
      ctx.status = refusal.status;
      ctx.type = 'application/xml; charset=utf-8';
      const prefix = DAV_CONDITIONS.has(refusal.condition) ? 'D' : 'C';
      ctx.body = `<?xml version="1.0" encoding="utf-8"?>\n<D:error xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><${prefix}:${refusal.condition}/><D:responsedescription>${escapeXml(refusal.message)}</D:responsedescription></D:error>`;
    }
  };
}

/** A refusal as WebDAV says it: ours as they are; an operation's (a 409 is a precondition: 403) over the calendar data; anything else is rethrown. */
function davRefusal(err: unknown): DavRefusal {
  if (err instanceof DavRefusal) return err;
  if (err instanceof TodoError) return new DavRefusal(400, 'valid-calendar-data', `This task cannot be kept: ${err.message}`);
  if (err instanceof ApiError && err.code !== 'rateLimited') return new DavRefusal(err.status === 409 ? 403 : err.status, 'valid-calendar-data', err.message);
  throw err;
}

/** Preconditions of WebDAV itself (RFC 4918, 6578); the others are CalDAV's (RFC 4791). */
const DAV_CONDITIONS = new Set(['valid-sync-token', 'need-privileges', 'resource-must-exist']);

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
