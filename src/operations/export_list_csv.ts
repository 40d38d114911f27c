import type { Handler } from '../core/context.js';
import { exportListCsv } from '../domain/transfer/export.js';

/** GET /lists/{id}/csv: one list as CSV text. */
export const export_list_csv: Handler<'export_list_csv'> = async (ctx, input) => (await exportListCsv(ctx.db, ctx.principal.userId, input.id)).csv;
