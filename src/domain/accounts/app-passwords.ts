/**
 * App passwords: what a CalDAV client (a phone's task app) signs in with over HTTP Basic,
 * since such clients cannot do OAuth. Each is named after the device it is for, shown once,
 * kept as its SHA-256 (as API keys are), and revoked on its own without touching the API key.
 * @see docs/caldav.md
 */
import { randomInt } from 'node:crypto';
import type { Knex } from 'knex';
import { hashToken } from './api-keys.js';
import { isUuid } from '../ids.js';

/** Lower-case letters and digits a person types on a phone without mistaking one for another (no 0/o, 1/l/i). */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** Four groups of four: 80 bits. */
const SHAPE = /^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/;

export interface AppPassword {
  id: string;
  name: string;
  hint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** True when the text has the shape of an app password (checked before any lookup). */
export function looksLikeAppPassword(text: string): boolean {
  return SHAPE.test(text);
}

/** Makes an app password named `name` for the person; returns it, shown once. */
export async function createAppPassword(db: Knex, userId: string, name: string): Promise<{ id: string; password: string }> {
  const groups = Array.from({ length: 4 }, () => Array.from({ length: 4 }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''));
  const password = groups.join('-');
  const [row] = (await db('app_passwords')
    .insert({ user_id: userId, name, password_hash: hashToken(password), hint: `…${password.slice(-4)}` })
    .returning('id')) as { id: string }[];
  return { id: row!.id, password };
}

/** The person's app passwords, newest first. */
export async function appPasswords(db: Knex, userId: string): Promise<AppPassword[]> {
  const rows = (await db('app_passwords').where({ user_id: userId }).orderBy('created_at', 'desc')) as {
    id: string;
    name: string;
    hint: string;
    created_at: Date;
    last_used_at: Date | null;
  }[];
  return rows.map((r) => ({ id: r.id, name: r.name, hint: r.hint, createdAt: r.created_at, lastUsedAt: r.last_used_at }));
}

/** Revokes one of the person's app passwords; false when it was not theirs or is gone. */
export async function revokeAppPassword(db: Knex, userId: string, id: string): Promise<boolean> {
  return isUuid(id) && (await db('app_passwords').where({ user_id: userId, id }).delete()) > 0;
}

/** The lookup of the app password whose hashToken is `hash`, as one scalar SQL query giving `{id, user_id, name, grant}` or null (run with the rate-limit count). */
export function appPasswordLookup(hash: string): { sql: string; bindings: string[] } {
  return {
    sql: `SELECT json_build_object('id', id, 'user_id', user_id, 'name', name, 'grant', "grant") FROM app_passwords WHERE password_hash = ?`,
    bindings: [hash],
  };
}

/** Notes that an app password was used (at most once a minute, so a syncing phone costs no write a request). */
export async function noteAppPasswordUse(db: Knex, id: string, now: Date): Promise<void> {
  await db('app_passwords')
    .where({ id })
    .where((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', new Date(now.getTime() - 60_000)))
    .update({ last_used_at: now });
}
