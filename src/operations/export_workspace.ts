import type { Handler } from '../core/context.js';
import { exportWorkspace } from '../domain/transfer/export.js';

/** GET /export: the whole workspace as one listkeeper export document. */
export const export_workspace: Handler<'export_workspace'> = async (ctx) =>
  exportWorkspace(ctx.db, ctx.principal.userId, ctx.config.baseUrl, ctx.services.now());
