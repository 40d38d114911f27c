import type { Handler } from '../core/context.js';
import { previewImport } from '../domain/transfer/imports.js';

/** POST /imports/preview: what create_import would write, with nothing written. */
export const preview_import: Handler<'preview_import'> = async (ctx, input) => previewImport(ctx.db, ctx.principal.userId, input, ctx.services.now());
