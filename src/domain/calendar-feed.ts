/**
 * The person's calendar feed: one secret address per person (kept as the SHA-256 of its token,
 * like API keys), and the tasks it serves: those with a due date on lists that keep one, open
 * or completed in the last COMPLETED_DAYS days. Rendering them as iCalendar is the adapter's
 * (src/http/calendar.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { hashToken } from './api-keys.js';
import { DUE_DATE_ID } from './properties.js';

export const TOKEN_PREFIX = 'cal_';
/** Completed tasks stay in the feed this long after completion, marked done. */
export const COMPLETED_DAYS = 14;

export interface FeedState {
  active: boolean;
  createdAt: string | null;
  lastFetchedAt: string | null;
}

export interface FeedTask {
  id: string;
  title: string;
  dueAt: Date;
  hasDueTime: boolean;
  completed: boolean;
  listName: string;
  updatedAt: Date;
}

/** Makes the person's feed token (replacing any earlier one, which stops working) and returns it. */
export async function createFeed(db: Knex, userId: string, now: Date): Promise<{ token: string; createdAt: Date }> {
  const token = `${TOKEN_PREFIX}${randomBytes(30).toString('base64url')}`;
  await db('calendar_feeds')
    .insert({ user_id: userId, token_hash: hashToken(token), created_at: now, last_fetched_at: null })
    .onConflict('user_id')
    .merge();
  return { token, createdAt: now };
}

/** Removes the person's feed; false when there was none. */
export async function revokeFeed(db: Knex, userId: string): Promise<boolean> {
  return (await db('calendar_feeds').where({ user_id: userId }).delete()) > 0;
}

export async function feedState(db: Knex, userId: string): Promise<FeedState> {
  const row = (await db('calendar_feeds').where({ user_id: userId }).first('created_at', 'last_fetched_at')) as
    | { created_at: Date; last_fetched_at: Date | null }
    | undefined;
  return { active: row !== undefined, createdAt: row?.created_at.toISOString() ?? null, lastFetchedAt: row?.last_fetched_at?.toISOString() ?? null };
}

/** The owner of a feed token and their time zone, noting the read; undefined for a token that is not (or no longer) one. */
export async function feedOwner(db: Knex, token: string, now: Date): Promise<{ userId: string; timezone: string } | undefined> {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined;
  const [row] = (await db('calendar_feeds')
    .where({ token_hash: hashToken(token) })
    .update({ last_fetched_at: now })
    .returning('user_id')) as { user_id: string }[];
  if (!row) return undefined;
  const user = (await db('users').where({ id: row.user_id }).first('timezone')) as { timezone: string } | undefined;
  return user ? { userId: row.user_id, timezone: user.timezone } : undefined;
}

/** The tasks the feed serves, by due date. */
export async function feedTasks(db: Knex, userId: string, now: Date): Promise<FeedTask[]> {
  const since = new Date(now.getTime() - COMPLETED_DAYS * 24 * 3600 * 1000);
  const rows = (await db('items as i')
    .join('lists as l', 'l.id', 'i.list_id')
    .where({ 'i.owner_id': userId })
    .whereNull('i.deleted_at')
    .whereNull('i.archived_at')
    .whereNull('l.deleted_at')
    .whereNotNull('i.due_at')
    .whereRaw(`l.properties @> ?::jsonb`, [JSON.stringify([{ id: DUE_DATE_ID }])])
    .where((q) => q.whereNull('i.completed_at').orWhere('i.completed_at', '>=', since))
    .orderBy('i.due_at')
    .limit(5000)
    .select('i.id', 'i.title', 'i.due_at', 'i.has_due_time', 'i.completed_at', 'i.updated_at', 'l.name as list_name')) as {
    id: string;
    title: string | null;
    due_at: Date;
    has_due_time: boolean | null;
    completed_at: Date | null;
    updated_at: Date;
    list_name: string;
  }[];
  return rows.map((r) => ({
    id: r.id,
    title: r.title ?? '',
    dueAt: r.due_at,
    hasDueTime: r.has_due_time !== false,
    completed: r.completed_at !== null,
    listName: r.list_name,
    updatedAt: r.updated_at,
  }));
}
