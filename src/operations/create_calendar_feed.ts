import type { Handler } from '../core/context.js';
import { createFeed } from '../domain/transfer/calendar-feed.js';

/** POST /calendar-feed: a new secret feed address (the one before stops working). */
export const create_calendar_feed: Handler<'create_calendar_feed'> = async (ctx) => {
  const { token, createdAt } = await createFeed(ctx.db, ctx.principal.userId, ctx.services.now());
  return { url: `${ctx.config.baseUrl}/calendar/${token}.ics`, createdAt: createdAt.toISOString() };
};
