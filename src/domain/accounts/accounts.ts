/** Accounts: a person and the hub lists every account starts with. */
import type { Knex } from 'knex';
import { createDefaultLists } from '../lists/lists.js';
import { invalid } from '../../core/errors.js';

export interface UserRow {
  id: string;
  email: string;
  name: string;
  timezone: string;
  created_at: Date;
}

/** True when `tz` is an IANA time zone this Node knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Creates a person with their Tasks, Notes and Life Admin lists, in one transaction. */
/** Refuses text that is not an email address. */
export function checkEmail(email: string): void {
  if (!/^[^@\s]+@[^@\s]+$/.test(email.trim())) throw invalid(`email '${email.trim()}' is not an email address.`, 'email');
}

export async function createUser(db: Knex, input: { email: string; name: string; timezone?: string; passwordHash?: string | null }): Promise<UserRow> {
  const email = input.email.trim();
  checkEmail(email);
  const timezone = input.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) throw invalid(`timezone '${timezone}' is not an IANA time zone such as Europe/London.`, 'timezone');
  return db.transaction(async (trx) => {
    const existing = await trx('users').whereRaw('lower(email) = lower(?)', [email]).first('id');
    if (existing) throw invalid(`An account with email ${email} exists already.`, 'email');
    const [user] = (await trx('users')
      .insert({ email, name: input.name.trim() || email, timezone, password_hash: input.passwordHash ?? null })
      .returning('*')) as UserRow[];
    await createDefaultLists(trx, user!.id);
    return user!;
  });
}

export async function findUserByEmail(db: Knex, email: string): Promise<UserRow | undefined> {
  return (await db('users').whereRaw('lower(email) = lower(?)', [email.trim()]).first()) as UserRow | undefined;
}

/** The account with this id, if there is one. */
export async function findUser(db: Knex, id: string): Promise<UserRow | undefined> {
  return (await db('users').where({ id }).first()) as UserRow | undefined;
}

export async function getUser(db: Knex, id: string): Promise<UserRow> {
  const user = (await db('users').where({ id }).first()) as UserRow | undefined;
  if (!user) throw new Error(`user ${id} vanished`);
  return user;
}

/** The person's IANA time zone (UTC for an account that is gone). */
export async function timeZoneOf(db: Knex, userId: string): Promise<string> {
  const user = (await db('users').where({ id: userId }).first('timezone')) as { timezone: string } | undefined;
  return user?.timezone ?? 'UTC';
}

/** Every IANA time zone this Node knows, for a picker (UTC included). */
export function timeZones(): string[] {
  const zones = Intl.supportedValuesOf('timeZone');
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

/** Sets the person's time zone (dates, reminders and automations follow it); refuses one that is not an IANA zone. */
export async function setTimeZone(db: Knex, userId: string, timezone: string): Promise<void> {
  if (!isTimeZone(timezone)) throw invalid(`'${timezone}' is not a time zone; choose one such as Europe/London, or UTC.`, 'timezone');
  await db('users').where({ id: userId }).update({ timezone });
}
