/**
 * Attachments on items, as the API shows them; with `includeImageUrls` each carries a
 * short-lived signed download `url` (DOWNLOAD_URL_SECONDS) served at /files/….
 */
import type { OperationContext } from '../../core/context.js';
import type { AttachmentRow, ItemRowDto } from './row-types.js';

import { signedFileUrl } from '../../files/signing.js';
import { DOWNLOAD_URL_SECONDS } from '../media/uploads.js';

interface AttachmentDto {
  id: string;
  bucketPath: string;
  mimeType: string;
  bytes: number | null;
  url?: string;
}
/** An attachment row as read for showing it. */

async function toDtos(ctx: OperationContext, rows: AttachmentRow[], withUrls: boolean): Promise<AttachmentDto[]> {
  const expiresAt = new Date(ctx.services.now().getTime() + DOWNLOAD_URL_SECONDS * 1000);
  return Promise.all(
    rows.map(async (r) => ({
      id: r.id,
      bucketPath: r.bucket_path,
      mimeType: r.mime_type,
      bytes: r.bytes,
      ...(withUrls ? { url: await signedFileUrl(ctx.db, ctx.config.baseUrl, 'GET', r.bucket_path, expiresAt) } : {}),
    })),
  );
}

/** The attachments of one item (with a signed `url` each when asked). */
export async function signedAttachments(ctx: OperationContext, itemId: string, withUrls: boolean, loaded?: AttachmentRow[]): Promise<AttachmentDto[]> {
  const rows = loaded ?? ((await ctx.db('attachments').where({ item_id: itemId }).orderBy('created_at')) as AttachmentRow[]);
  return toDtos(ctx, rows, withUrls);
}

/** Adds each item's attachments, with signed URLs, to list rows (`includeImageUrls`). */
export async function withImageUrls(ctx: OperationContext, items: ItemRowDto[]): Promise<ItemRowDto[]> {
  const ids = items.map((i) => i.id);
  const rows = ids.length ? ((await ctx.db('attachments').whereIn('item_id', ids).orderBy('created_at')) as AttachmentRow[]) : [];
  const dtos = await toDtos(ctx, rows, true);
  return items.map((item) => ({ ...item, attachments: dtos.filter((_, i) => rows[i]!.item_id === item.id) }));
}
