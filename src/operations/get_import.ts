import type { Handler } from '../core/context.js';
import { getImport } from '../domain/transfer/imports.js';

/** GET /imports/{id}: an import's state and progress. */
export const get_import: Handler<'get_import'> = async (ctx, input) => getImport(ctx.db, ctx.principal.userId, input.id);
