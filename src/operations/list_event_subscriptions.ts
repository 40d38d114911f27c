import type { Handler } from '../core/context.js';
import { listSubscriptions, subscriptionDto } from '../domain/changes/subscriptions.js';

/** GET /event-subscriptions: the person's subscriptions (REST and MCP), secrets hidden. */
export const list_event_subscriptions: Handler<'list_event_subscriptions'> = async (ctx) => {
  const rows = await listSubscriptions(ctx.db, ctx.principal.userId);
  return { count: rows.length, subscriptions: rows.map((r) => subscriptionDto(r)) };
};
