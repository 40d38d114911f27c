/**
 * API keys: `lk_` and 45 random base62 characters (48 in all). Only a SHA-256 hash is kept;
 * a person holds one key at a time, so creating a key replaces the old one.
 * @see docs/auth.md "API keys"
 */
import { createHash, randomInt } from 'node:crypto';
import { endSubscriptionsOf } from '../changes/subscriptions.js';
import type { Knex } from 'knex';
import type { Grant } from '../../core/context.js';

export const API_KEY_PREFIX = 'lk_';
export const API_KEY_LENGTH = 48;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** True when the token has the shape of one of our keys (checked before any lookup). */
export function looksLikeApiKey(token: string): boolean {
  return token.length === API_KEY_LENGTH && token.startsWith(API_KEY_PREFIX);
}

/**
 * Mints a key for the user, replacing any key they had (the new key has a new id, and the
 * event subscriptions the old key made end with it); returns the key, shown once. A grant
 * makes it hold less than the whole person.
 */
export async function createApiKey(db: Knex, userId: string, grant?: Grant): Promise<string> {
  let key = API_KEY_PREFIX;
  while (key.length < API_KEY_LENGTH) key += BASE62[randomInt(BASE62.length)];
  await db.transaction(async (trx) => {
    await dropKey(trx, userId);
    await trx('api_keys').insert({
      user_id: userId,
      key_hash: hashToken(key),
      hint: `${key.slice(0, 7)}…${key.slice(-4)}`,
      created_at: trx.fn.now(),
      grant: grant ? JSON.stringify(grant) : null,
    });
  });
  return key;
}

/** Removes the user's key (it answers 401 on its next call) and ends the event subscriptions it made. */
export async function revokeApiKey(db: Knex, userId: string): Promise<boolean> {
  return db.transaction((trx) => dropKey(trx, userId));
}

async function dropKey(trx: Knex, userId: string): Promise<boolean> {
  const old = (await trx('api_keys').where({ user_id: userId }).forUpdate().first('id')) as { id: string } | undefined;
  if (!old) return false;
  await endSubscriptionsOf(trx, userId, `key:${old.id}`);
  await trx('api_keys').where({ id: old.id }).delete();
  return true;
}

/** The hint (last characters), creation time and grant (null: the whole person) of the person's API key, if they have one. */
export async function apiKeyHint(db: Knex, userId: string): Promise<{ hint: string; created_at: Date; grant: unknown } | undefined> {
  return (await db('api_keys').where({ user_id: userId }).first('hint', 'created_at', 'grant')) as
    | { hint: string; created_at: Date; grant: unknown }
    | undefined;
}
