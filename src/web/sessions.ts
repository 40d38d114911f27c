/**
 * Sessions of the web pages: a random 256-bit token in an HttpOnly, SameSite=Lax cookie;
 * Postgres keeps only its SHA-256 (table `sessions`), so a database leak signs nobody in.
 * A session lasts SESSION_TTL_DAYS from sign-in; signing out deletes the row.
 *
 * CSRF: every form carries a token that is an HMAC (keyed with the current cookie secret)
 * of the browser's session token — or, before sign-in, of a random pre-session cookie — and
 * every POST must echo it. Requests whose Origin header names another site are refused too.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Knex } from 'knex';
import { createSession, deleteSession, sessionUser } from '../domain/accounts/sessions.js';

export const SESSION_COOKIE = 'lk_session';
const PRE_SESSION_COOKIE = 'lk_pre';
export const SESSION_TTL_DAYS = 14;

export interface WebUser {
  id: string;
  email: string;
  name: string;
  /** When this browser signed in (the session's start): the authentication time OAuth reports. */
  signedInAt: Date;
  /** The OAuth interaction that asked for this sign-in, if one did. */
  freshFor: string | null;
}

const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, path: '/', overwrite: true, signed: false };

/** Creates a session for the user and sets its cookie. */
export async function signIn(ctx: Context, db: Knex, userId: string, freshFor: string | null = null): Promise<void> {
  // A new sign-in replaces the browser's previous session, if any.
  const previous = ctx.cookies.get(SESSION_COOKIE);
  if (previous) await deleteSession(db, previous);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + SESSION_TTL_DAYS * 86400_000);
  await createSession(db, token, userId, expiresAt, freshFor);
  ctx.cookies.set(SESSION_COOKIE, token, { ...cookieOptions, expires: expiresAt });
  ctx.state.webUser = undefined;
  ctx.state.webSessionToken = token;
}

/** Deletes the browser's session and its cookie. */
export async function signOut(ctx: Context, db: Knex): Promise<void> {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (token) await deleteSession(db, token);
  ctx.cookies.set(SESSION_COOKIE, null, cookieOptions);
  ctx.state.webUser = null;
  ctx.state.webSessionToken = undefined;
}

/** The signed-in person of this request, or null; looked up once per request. */
export async function currentUser(ctx: Context, db: Knex): Promise<WebUser | null> {
  if (ctx.state.webUser !== undefined) return ctx.state.webUser as WebUser | null;
  const token = ctx.cookies.get(SESSION_COOKIE);
  let user: WebUser | null = null;
  if (token && token.length <= 100) {
    const row = await sessionUser(db, token);
    if (row) {
      user = { id: row.id, email: row.email, name: row.name, signedInAt: row.created_at, freshFor: row.fresh_for };
      ctx.state.webSessionToken = token;
    }
  }
  ctx.state.webUser = user;
  return user;
}

/** What a CSRF token is bound to: the session token, else a pre-session cookie (set if missing). */
function csrfBinding(ctx: Context): string {
  const session = ctx.state.webSessionToken as string | undefined;
  if (session) return `s:${session}`;
  let pre = ctx.cookies.get(PRE_SESSION_COOKIE);
  if (!pre || pre.length > 100) {
    pre = randomBytes(24).toString('base64url');
    ctx.cookies.set(PRE_SESSION_COOKIE, pre, cookieOptions);
  }
  return `p:${pre}`;
}

/** The CSRF token for forms on this page; call after currentUser (so the binding is the session). */
export function csrfToken(ctx: Context, secret: string): string {
  return createHmac('sha256', secret).update(csrfBinding(ctx)).digest('base64url');
}

/** True when the submitted token matches this browser's binding under any of the cookie secrets. */
export function csrfValid(ctx: Context, secrets: readonly string[], submitted: unknown): boolean {
  if (typeof submitted !== 'string' || submitted.length === 0) return false;
  const given = Buffer.from(submitted);
  const binding = csrfBinding(ctx);
  return secrets.some((secret) => {
    const expected = Buffer.from(createHmac('sha256', secret).update(binding).digest('base64url'));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}
