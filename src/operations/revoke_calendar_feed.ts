import type { Handler } from '../core/context.js';
import { revokeFeed } from '../domain/transfer/calendar-feed.js';

/** DELETE /calendar-feed: the feed address stops working. */
export const revoke_calendar_feed: Handler<'revoke_calendar_feed'> = async (ctx) => ({ revoked: await revokeFeed(ctx.db, ctx.principal.userId) });
