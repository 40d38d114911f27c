/**
 * Web sessions as stored: the SHA-256 of each session token (never the token), its person,
 * expiry, and the OAuth interaction that asked for the sign-in, if one did.
 */
import type { Knex } from 'knex';
import { hashToken } from './api-keys.js';
import type { UserRow } from './accounts.js';

/** A live session's person, as the web pages need them. */
export type SessionUser = Pick<UserRow, 'id' | 'email' | 'name' | 'created_at'> & { fresh_for: string | null };

/** Stores a session for `token`, valid until `expiresAt`. Now and then also sweeps expired sessions. */
export async function createSession(db: Knex, token: string, userId: string, expiresAt: Date, freshFor: string | null): Promise<void> {
  await db('sessions').insert({ id: hashToken(token), user_id: userId, expires_at: expiresAt, fresh_for: freshFor });
  if (Math.random() < 0.05)
    void db('sessions')
      .where('expires_at', '<', db.fn.now())
      .delete()
      .catch(() => undefined);
}

/** Ends the session of `token`, if it exists. */
export async function deleteSession(db: Knex, token: string): Promise<void> {
  await db('sessions')
    .where({ id: hashToken(token) })
    .delete();
}

/** The person of a live session of `token` (`created_at` is when the session began), or undefined. */
export async function sessionUser(db: Knex, token: string): Promise<SessionUser | undefined> {
  return (await db('sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.id', hashToken(token))
    .andWhere('s.expires_at', '>', db.fn.now())
    .first('u.id', 'u.email', 'u.name', 's.created_at', 's.fresh_for')) as SessionUser | undefined;
}

/** Ends every web session of a person, in every browser: sign out everywhere, a new password. Returns how many ended. */
export async function endSessionsOf(db: Knex, userId: string): Promise<number> {
  return db('sessions').where({ user_id: userId }).delete();
}
