import type { Handler } from '../core/context.js';
import { startImport } from '../domain/transfer/imports.js';

/** POST /imports: checks the input, stores its plan and queues the import; answers at once. */
export const create_import: Handler<'create_import'> = async (ctx, input) =>
  startImport(ctx.db, ctx.services.jobs, { userId: ctx.principal.userId, clientName: ctx.principal.clientName }, input, ctx.services.now());
