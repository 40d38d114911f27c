import type { Handler } from '../core/context.js';
import { createFeed } from '../domain/transfer/calendar-feed.js';

/** POST /calendar-feed: a new secret feed address (the one before stops working); made by a connection with a grant, it keeps to that grant's lists. */
export const create_calendar_feed: Handler<'create_calendar_feed'> = async (ctx) => {
  const { token, createdAt } = await createFeed(ctx.db, ctx.principal.userId, ctx.services.now(), ctx.principal.grant ? ctx.principal.tokenId : null);
  return { url: `${ctx.config.baseUrl}/calendar/${token}.ics`, createdAt: createdAt.toISOString() };
};
