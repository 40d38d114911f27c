import type { Handler } from '../core/context.js';
import { feedState } from '../domain/transfer/calendar-feed.js';

/** GET /calendar-feed: whether the person has a feed address, without the address. */
export const get_calendar_feed: Handler<'get_calendar_feed'> = async (ctx) => feedState(ctx.db, ctx.principal.userId);
