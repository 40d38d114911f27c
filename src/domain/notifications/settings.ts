/**
 * The person's notification settings: which channels carry their notices (Web Push to the
 * browsers they turned it on in, email, an HTTP topic such as ntfy), which kinds of mail they
 * still want, quiet hours in their zone, and the note left when a channel was dropped because
 * it is gone (an expired push subscription, a bouncing address, a topic that no longer exists).
 * @see docs/notifications.md
 */
import type { Knex } from 'knex';
import { invalid, toolError } from '../../core/errors.js';
import { CallbackUrlError, checkCallbackUrl } from '../../core/outbound.js';
import { isUuid } from '../ids.js';
import { localParts, localToUtc } from '../time.js';
import type { NoticeKind } from '../changes/notices.js';

export type Channel = 'push' | 'email' | 'topic';

export interface NotificationSettings {
  pushOn: boolean;
  emailOn: boolean;
  /** Where mail goes; null: the account's email. */
  emailAddress: string | null;
  /** The kinds of mail the person still wants (one-click unsubscribe turns one off). */
  emailKinds: Record<NoticeKind, boolean>;
  topicOn: boolean;
  topicUrl: string | null;
  /** Quiet hours, HH:MM in the person's zone; both or neither. */
  quietStart: string | null;
  quietEnd: string | null;
  /** Why a channel was turned off or a browser dropped, by channel; null when nothing was. */
  notes: Record<Channel, string | null>;
}

interface SettingsRow {
  push_on: boolean;
  email_on: boolean;
  email_address: string | null;
  email_reminders: boolean;
  email_questions: boolean;
  topic_on: boolean;
  topic_url: string | null;
  quiet_start: string | null;
  quiet_end: string | null;
  push_note: string | null;
  email_note: string | null;
  topic_note: string | null;
}

export interface PushSubscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  browser: string | null;
  createdAt: Date;
}

const DEFAULTS: SettingsRow = {
  push_on: false,
  email_on: false,
  email_address: null,
  email_reminders: true,
  email_questions: true,
  topic_on: false,
  topic_url: null,
  quiet_start: null,
  quiet_end: null,
  push_note: null,
  email_note: null,
  topic_note: null,
};

/** The person's settings (everything off until they turn something on). */
export async function readSettings(db: Knex, userId: string): Promise<NotificationSettings> {
  const row = ((await db('notification_settings').where({ user_id: userId }).first()) as SettingsRow | undefined) ?? DEFAULTS;
  return {
    pushOn: row.push_on,
    emailOn: row.email_on,
    emailAddress: row.email_address,
    emailKinds: { reminder: row.email_reminders, question: row.email_questions },
    topicOn: row.topic_on,
    topicUrl: row.topic_url,
    quietStart: row.quiet_start,
    quietEnd: row.quiet_end,
    notes: { push: row.push_note, email: row.email_note, topic: row.topic_note },
  };
}

/** What a change of the settings may set; turning a channel on clears its note. */
export interface SettingsChange {
  pushOn?: boolean;
  emailOn?: boolean;
  emailAddress?: string | null;
  emailKinds?: Partial<Record<NoticeKind, boolean>>;
  topicOn?: boolean;
  topicUrl?: string | null;
  quiet?: { start: string; end: string } | null;
}

/** A change as set_notification_settings sends it (openapi.yaml x-person-paths /person/notifications). */
export interface SettingsInput {
  pushOn?: boolean;
  emailOn?: boolean;
  emailAddress?: string;
  emailReminders?: boolean;
  emailQuestions?: boolean;
  topicOn?: boolean;
  topicUrl?: string;
  quietStart?: string;
  quietEnd?: string;
}

/**
 * Checks a change against what it would leave: an email address that is one, a topic URL
 * that is https and public, quiet hours with a start and an end, email only where the service
 * has a mail server, a topic only with its URL.
 */
export async function readSettingsChange(
  db: Knex,
  userId: string,
  input: SettingsInput,
  service: { mailServer: boolean; allowPrivate: boolean },
): Promise<SettingsChange> {
  const change: SettingsChange = {};
  const current = await readSettings(db, userId);
  if (input.emailAddress !== undefined) {
    const address = input.emailAddress.trim();
    if (address && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(address)) throw invalid(`emailAddress '${address}' is not an email address.`, 'emailAddress');
    change.emailAddress = address || null;
  }
  if (input.emailOn === true && !service.mailServer)
    throw toolError('This service sends no email: its operator has not set SMTP_URL (docs/notifications.md). Use push or a topic.');
  if (input.topicUrl !== undefined) change.topicUrl = input.topicUrl.trim() ? await topicUrl(input.topicUrl.trim(), service.allowPrivate) : null;
  if (input.topicOn === true && !(change.topicUrl ?? (change.topicUrl === null ? null : current.topicUrl)))
    throw invalid('topicOn needs a topicUrl: the address a POST publishes to, such as https://ntfy.sh/<your topic>.', 'topicUrl');
  if (input.quietStart !== undefined || input.quietEnd !== undefined) change.quiet = quietHours(input.quietStart ?? '', input.quietEnd ?? '');
  for (const key of ['pushOn', 'emailOn', 'topicOn'] as const) if (input[key] !== undefined) change[key] = input[key];
  if (input.emailReminders !== undefined || input.emailQuestions !== undefined)
    change.emailKinds = {
      ...(input.emailReminders !== undefined ? { reminder: input.emailReminders } : {}),
      ...(input.emailQuestions !== undefined ? { question: input.emailQuestions } : {}),
    };
  return change;
}

async function topicUrl(url: string, allowPrivate: boolean): Promise<string> {
  try {
    return (await checkCallbackUrl(url, allowPrivate)).toString();
  } catch (err) {
    if (err instanceof CallbackUrlError) throw invalid(err.message.replace(/^url /, 'topicUrl '), 'topicUrl');
    throw err;
  }
}

function quietHours(start: string, end: string): { start: string; end: string } | null {
  if (start === '' && end === '') return null;
  for (const [field, value] of [
    ['quietStart', start],
    ['quietEnd', end],
  ] as const)
    if (!isTimeOfDay(value))
      throw invalid(`${field} '${value}' is not a time of day such as 22:00; send quietStart and quietEnd both, or both "" for none.`, field);
  if (start === end) throw invalid('quietStart and quietEnd are the same time: quiet hours need a start and a later (or next-morning) end.', 'quietEnd');
  return { start, end };
}

/** Writes a change of the person's settings. */
export async function saveSettings(db: Knex, userId: string, change: SettingsChange): Promise<NotificationSettings> {
  const columns: Partial<SettingsRow> = {};
  if (change.pushOn !== undefined) Object.assign(columns, { push_on: change.pushOn }, change.pushOn ? { push_note: null } : {});
  if (change.emailOn !== undefined) Object.assign(columns, { email_on: change.emailOn }, change.emailOn ? { email_note: null } : {});
  if (change.emailAddress !== undefined) columns.email_address = change.emailAddress;
  if (change.emailKinds?.reminder !== undefined) columns.email_reminders = change.emailKinds.reminder;
  if (change.emailKinds?.question !== undefined) columns.email_questions = change.emailKinds.question;
  if (change.topicOn !== undefined) Object.assign(columns, { topic_on: change.topicOn }, change.topicOn ? { topic_note: null } : {});
  if (change.topicUrl !== undefined) columns.topic_url = change.topicUrl;
  if (change.quiet !== undefined) Object.assign(columns, { quiet_start: change.quiet?.start ?? null, quiet_end: change.quiet?.end ?? null });
  await db('notification_settings')
    .insert({ user_id: userId, ...columns, updated_at: db.fn.now() })
    .onConflict('user_id')
    .merge({ ...columns, updated_at: db.fn.now() });
  return readSettings(db, userId);
}

/** The browsers that take the person's pushes. */
export async function pushSubscriptions(db: Knex, userId: string): Promise<PushSubscription[]> {
  const rows = (await db('push_subscriptions').where({ user_id: userId }).orderBy('created_at')) as {
    id: string;
    endpoint: string;
    p256dh: string;
    auth: string;
    browser: string | null;
    created_at: Date;
  }[];
  return rows.map((r) => ({ id: r.id, endpoint: r.endpoint, p256dh: r.p256dh, auth: r.auth, browser: r.browser, createdAt: r.created_at }));
}

/** Keeps a browser's push subscription for the person (a browser that subscribed for someone else is theirs now). */
export async function addPushSubscription(
  db: Knex,
  userId: string,
  subscription: { endpoint: string; p256dh: string; auth: string; browser: string | null },
): Promise<string> {
  const [row] = (await db('push_subscriptions')
    .insert({ user_id: userId, ...subscription })
    .onConflict('endpoint')
    .merge({ user_id: userId, p256dh: subscription.p256dh, auth: subscription.auth, browser: subscription.browser })
    .returning('id')) as { id: string }[];
  return row!.id;
}

/** A browser's push endpoint as the person may give it: its push service's https address (public, as webhook URLs). */
export async function checkPushEndpoint(endpoint: string, allowPrivate: boolean): Promise<string> {
  try {
    return (await checkCallbackUrl(endpoint, allowPrivate)).toString();
  } catch (err) {
    if (err instanceof CallbackUrlError) throw invalid(err.message.replace(/^url /, 'endpoint '), 'endpoint');
    throw err;
  }
}

/** Forgets one of the person's browsers (by subscription id or endpoint); false when it was not theirs. */
export async function removePushSubscription(db: Knex, userId: string, which: { id?: string; endpoint?: string }): Promise<boolean> {
  const query = db('push_subscriptions').where({ user_id: userId });
  if (which.id !== undefined) {
    if (!isUuid(which.id)) return false;
    query.where({ id: which.id });
  } else query.where({ endpoint: which.endpoint ?? '' });
  return (await query.delete()) > 0;
}

/**
 * A channel is gone (the push service forgot the browser, the mail server refuses the
 * address for good, the topic no longer exists): the browser is forgotten, or the channel
 * turned off, and the note says why.
 */
export async function dropChannel(db: Knex, userId: string, channel: Channel, target: string, note: string): Promise<void> {
  if (channel === 'push') {
    await db('push_subscriptions').where({ user_id: userId, id: target }).delete();
    await saveNote(db, userId, { push_note: note });
  } else if (channel === 'email') await saveNote(db, userId, { email_on: false, email_note: note });
  else await saveNote(db, userId, { topic_on: false, topic_note: note });
}

async function saveNote(db: Knex, userId: string, columns: Partial<SettingsRow>): Promise<void> {
  await db('notification_settings')
    .insert({ user_id: userId, ...columns })
    .onConflict('user_id')
    .merge({ ...columns, updated_at: db.fn.now() });
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** True for a time of day written HH:MM (24 hours). */
export function isTimeOfDay(text: string): boolean {
  return HHMM.test(text);
}

/**
 * When quiet hours that hold `now` end, in the person's zone; null outside them (or with
 * none set). Hours that pass midnight (22:00 to 07:00) hold from the evening to the morning.
 */
export function quietUntil(settings: Pick<NotificationSettings, 'quietStart' | 'quietEnd'>, timeZone: string, now: Date): Date | null {
  const start = settings.quietStart ? HHMM.exec(settings.quietStart) : null;
  const end = settings.quietEnd ? HHMM.exec(settings.quietEnd) : null;
  if (!start || !end) return null;
  const minutes = (m: RegExpExecArray) => Number(m[1]) * 60 + Number(m[2]);
  const local = localParts(now, timeZone);
  const at = local.hour * 60 + local.minute;
  const [from, to] = [minutes(start), minutes(end)];
  const quiet = from <= to ? at >= from && at < to : at >= from || at < to;
  if (!quiet) return null;
  // The end is today, or (past midnight from the evening) tomorrow.
  const endsTomorrow = from > to && at >= from;
  const day = new Date(Date.UTC(local.year, local.month - 1, local.day + (endsTomorrow ? 1 : 0)));
  return localToUtc(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), Number(end[1]), Number(end[2]), timeZone);
}
