/**
 * Event subscriptions: made over REST (POST /event-subscriptions) or by an MCP client
 * (`events/subscribe`, one per client and event, keyed by the token), secrets minted or the
 * caller's own, and the verification that every new callback URL goes through before its
 * first event (queued through the outbox in the same transaction).
 * @see docs/events.md
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { components } from '../../generated/api.js';
import { emit } from './outbox.js';
import { DEFAULT_EVENTS } from './events.js';
import { iso } from '../time.js';

export type EventSubscriptionDto = components['schemas']['EventSubscription'];
/** Outbox topic that queues a subscription's verification; subject is the subscription id. */
export const VERIFY_TOPIC = 'webhook.verify';
/** Subscriptions one person may hold (REST and MCP together). */
export const MAX_SUBSCRIPTIONS = 25;

export interface SubscriptionRow {
  id: string;
  user_id: string;
  via: 'rest' | 'mcp';
  client_key: string | null;
  /** The credential that made it (`key:<api key id>`, `grant:<grant id>`); it ends with that credential. */
  credential: string | null;
  url: string;
  secret: string;
  events: string[];
  /** Item events carry the whole item (`data.item`). */
  include_item: boolean;
  status: 'pending' | 'active' | 'retired';
  created_at: Date;
  verified_at: Date | null;
  retired_at: Date | null;
  expires_at: Date | null;
  last_delivery_at: Date | null;
  last_error: string | null;
}

/** A new Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function mintSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Why a caller's own secret is unusable, or null: `whsec_` + base64 of 24 to 64 bytes. */
export function secretProblem(secret: string): string | null {
  if (!secret.startsWith('whsec_')) return "secret must start with 'whsec_'.";
  const encoded = secret.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return "secret must be 'whsec_' followed by standard base64.";
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < 24 || bytes > 64) return `secret must encode 24 to 64 random bytes; it encodes ${bytes}.`;
  return null;
}

export function subscriptionDto(row: SubscriptionRow, mintedSecret?: string): EventSubscriptionDto {
  return {
    id: row.id,
    url: row.url,
    status: row.status,
    events: row.events,
    includeItem: row.include_item,
    via: row.via,
    createdAt: row.created_at.toISOString(),
    verifiedAt: iso(row.verified_at),
    refreshBefore: iso(row.expires_at),
    lastDeliveryAt: iso(row.last_delivery_at),
    lastError: row.last_error,
    ...(mintedSecret ? { secret: mintedSecret } : {}),
  };
}

export class SubscriptionLimitError extends Error {}

/** A person's subscriptions, oldest first. */
export async function listSubscriptions(db: Knex, userId: string): Promise<SubscriptionRow[]> {
  return (await db('event_subscriptions').where({ user_id: userId }).orderBy('created_at').orderBy('id')) as SubscriptionRow[];
}

async function ensureRoom(trx: Knex, userId: string): Promise<void> {
  const { n } = (await trx('event_subscriptions').where({ user_id: userId }).count('* as n').first()) as { n: number };
  if (Number(n) >= MAX_SUBSCRIPTIONS)
    throw new SubscriptionLimitError(`You hold ${MAX_SUBSCRIPTIONS} event subscriptions, the most allowed; delete one first.`);
}

/**
 * A REST subscription to `events` (by default task.awaitingAgent alone, as before change events
 * existed), pending until its URL answers the challenge.
 */
export async function createSubscription(
  db: Knex,
  input: { userId: string; url: string; secret: string; credential: string; events?: string[] | undefined; includeItem?: boolean | undefined },
): Promise<SubscriptionRow> {
  return db.transaction(async (trx) => {
    // One person's subscriptions are counted and added one at a time.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`subscriptions:${input.userId}`]);
    await ensureRoom(trx, input.userId);
    const [row] = (await trx('event_subscriptions')
      .insert({
        user_id: input.userId,
        via: 'rest',
        url: input.url,
        secret: input.secret,
        events: input.events?.length ? [...new Set(input.events)] : DEFAULT_EVENTS,
        include_item: input.includeItem === true,
        credential: input.credential,
      })
      .returning('*')) as SubscriptionRow[];
    await emit(trx, VERIFY_TOPIC, row!.id);
    return row!;
  });
}

/**
 * MCP `events/subscribe`: one subscription per client (token) and event. The same call again
 * refreshes it (new expiry, new secret); a new URL, or a retired subscription, starts over with
 * a fresh verification.
 */
export async function upsertClientSubscription(
  db: Knex,
  input: { userId: string; clientKey: string; event: string; url: string; secret: string; expiresAt: Date; includeItem?: boolean },
): Promise<SubscriptionRow> {
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`subscriptions:${input.userId}`]);
    const existing = (await trx('event_subscriptions')
      .where({ user_id: input.userId, via: 'mcp', client_key: input.clientKey })
      .whereRaw('events[1] = ?', [input.event])
      .first()) as SubscriptionRow | undefined;
    if (existing && existing.url === input.url && existing.status !== 'retired') {
      const [row] = (await trx('event_subscriptions')
        .where({ id: existing.id })
        .update({ secret: input.secret, expires_at: input.expiresAt, include_item: input.includeItem === true })
        .returning('*')) as SubscriptionRow[];
      return row!;
    }
    let row: SubscriptionRow;
    if (existing) {
      [row] = (await trx('event_subscriptions')
        .where({ id: existing.id })
        .update({
          url: input.url,
          secret: input.secret,
          expires_at: input.expiresAt,
          include_item: input.includeItem === true,
          status: 'pending',
          verified_at: null,
          retired_at: null,
          last_error: null,
        })
        .returning('*')) as [SubscriptionRow];
      await trx('webhook_deliveries').where({ subscription_id: existing.id, status: 'pending' }).update({ status: 'discarded', finished_at: trx.fn.now() });
    } else {
      await ensureRoom(trx, input.userId);
      [row] = (await trx('event_subscriptions')
        .insert({
          user_id: input.userId,
          via: 'mcp',
          client_key: input.clientKey,
          credential: input.clientKey,
          url: input.url,
          secret: input.secret,
          events: [input.event],
          include_item: input.includeItem === true,
          expires_at: input.expiresAt,
        })
        .returning('*')) as [SubscriptionRow];
    }
    await emit(trx, VERIFY_TOPIC, row.id);
    return row;
  });
}

/** Removes one of the person's subscriptions; false when they hold none by that id. */
export async function removeSubscription(db: Knex, userId: string, id: string): Promise<boolean> {
  return (await db('event_subscriptions').where({ id, user_id: userId }).delete()) > 0;
}

/** MCP `events/unsubscribe`: removes the client's subscription to `event` (at `url`, when given). */
export async function removeClientSubscription(
  db: Knex,
  input: { userId: string; clientKey: string; event: string; url?: string | undefined },
): Promise<boolean> {
  const query = db('event_subscriptions').where({ user_id: input.userId, via: 'mcp', client_key: input.clientKey }).whereRaw('events[1] = ?', [input.event]);
  if (input.url) query.where({ url: input.url });
  return (await query.delete()) > 0;
}

/**
 * Ends the subscriptions a credential made (`key:<id>` of an API key replaced or revoked,
 * `grant:<id>` of a disconnected app), in the caller's transaction; their pending deliveries go
 * with them. Returns how many ended.
 */
export async function endSubscriptionsOf(trx: Knex, userId: string | null, credential: string): Promise<number> {
  return trx('event_subscriptions')
    .where({ credential, ...(userId ? { user_id: userId } : {}) })
    .delete();
}
