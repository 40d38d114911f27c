import type { Handler } from '../core/context.js';
import { labelCatalogue } from '../domain/items/labels.js';

/** GET /labels: every label the person uses, with counts. */
export const list_labels: Handler<'list_labels'> = async (ctx) => ({ labels: await labelCatalogue(ctx.db, ctx.principal.userId) });
