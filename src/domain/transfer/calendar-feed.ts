/**
 * The person's calendar feed: one secret address per person (kept as the SHA-256 of its token,
 * like API keys), and the tasks it serves: those with a due date on lists that keep one, open
 * or completed in the last COMPLETED_DAYS days. Rendering them as iCalendar is the adapter's
 * (src/http/calendar.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { hashToken } from '../accounts/api-keys.js';
import { DUE_DATE_ID } from '../lists/properties.js';
import { localNow } from '../time.js';
import { reachOfCredential } from '../accounts/grants.js';

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
  /** When it is due: an instant, or (a due date without a time) the person's local date, YYYY-MM-DD. */
  due: { at: Date } | { date: string };
  completed: boolean;
  listName: string;
  updatedAt: Date;
  /** The RRULE it repeats by (its due date is the next occurrence), or null. */
  recurrence: string | null;
}

/**
 * Makes the person's feed token (replacing any earlier one, which stops working) and returns it.
 * `credential`: the connection with a grant that made it, whose lists the feed keeps to.
 */
export async function createFeed(db: Knex, userId: string, now: Date, credential: string | null = null): Promise<{ token: string; createdAt: Date }> {
  const token = `${TOKEN_PREFIX}${randomBytes(30).toString('base64url')}`;
  await db('calendar_feeds')
    .insert({ user_id: userId, token_hash: hashToken(token), created_at: now, last_fetched_at: null, credential })
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

/**
 * What the feed at `token` serves, noting the read: the owner's tasks with a due date, by due
 * date; undefined for a token that is not (or no longer) a feed's.
 */
export async function readFeed(db: Knex, token: string, now: Date): Promise<{ timeZone: string; tasks: FeedTask[] } | undefined> {
  if (!token.startsWith(TOKEN_PREFIX)) return undefined;
  const owner = (
    await db.raw<{ rows: { user_id: string; timezone: string; credential: string | null }[] }>(
      `UPDATE calendar_feeds f SET last_fetched_at = ? FROM users u
        WHERE f.token_hash = ? AND u.id = f.user_id
        RETURNING f.user_id, u.timezone, f.credential`,
      [now, hashToken(token)],
    )
  ).rows[0];
  if (!owner) return undefined;
  const since = new Date(now.getTime() - COMPLETED_DAYS * 24 * 3600 * 1000);
  // A feed made by a connection of chosen lists serves the lists its credential reaches now.
  const reach = await reachOfCredential(db, owner.user_id, owner.credential);
  const rows = (await db('items as i')
    .modify((q) => {
      if (reach) void q.whereIn('i.list_id', reach);
    })
    .join('lists as l', 'l.id', 'i.list_id')
    .where({ 'i.owner_id': owner.user_id })
    .whereNull('i.deleted_at')
    .whereNull('i.archived_at')
    .whereNull('l.deleted_at')
    .whereNotNull('i.due_at')
    .whereRaw(`l.properties @> ?::jsonb`, [JSON.stringify([{ id: DUE_DATE_ID }])])
    .where((q) => q.whereNull('i.completed_at').orWhere('i.completed_at', '>=', since))
    .orderBy('i.due_at')
    .limit(5000)
    .select('i.id', 'i.title', 'i.due_at', 'i.has_due_time', 'i.completed_at', 'i.updated_at', 'i.recurrence', 'l.name as list_name')) as {
    id: string;
    title: string | null;
    due_at: Date;
    has_due_time: boolean | null;
    completed_at: Date | null;
    updated_at: Date;
    recurrence: string | null;
    list_name: string;
  }[];
  const tasks = rows.map((r) => ({
    id: r.id,
    title: r.title ?? '',
    // A date alone is stored as the start of that day in the person's zone: its date there.
    due: r.has_due_time === false ? { date: localNow(r.due_at, owner.timezone).today } : { at: r.due_at },
    completed: r.completed_at !== null,
    listName: r.list_name,
    updatedAt: r.updated_at,
    recurrence: r.recurrence,
  }));
  return { timeZone: owner.timezone, tasks };
}
