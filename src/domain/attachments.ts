/**
 * Attachments on items, as the API shows them. Signed URLs come with the uploads feature;
 * until images can be attached (see images.ts) an item has none.
 */
import type { OperationContext } from '../operations/types.js';
import type { ItemRowDto } from './items.js';

interface AttachmentDto { id: string; bucketPath: string; mimeType: string; bytes: number | null; url?: string }

/** The attachments of one item (with a signed `url` each when asked). */
export async function signedAttachments(ctx: OperationContext, itemId: string, _withUrls: boolean): Promise<AttachmentDto[]> {
  const rows = (await ctx.db('attachments').where({ item_id: itemId }).orderBy('created_at')) as { id: string; bucket_path: string; mime_type: string; bytes: number | null }[];
  return rows.map((r) => ({ id: r.id, bucketPath: r.bucket_path, mimeType: r.mime_type, bytes: r.bytes }));
}

/** Adds each item's attachments to list rows (`includeImageUrls`). */
export async function withImageUrls(ctx: OperationContext, items: ItemRowDto[]): Promise<ItemRowDto[]> {
  const ids = items.map((i) => i.id);
  const rows = ids.length ? ((await ctx.db('attachments').whereIn('item_id', ids).orderBy('created_at')) as { id: string; item_id: string; bucket_path: string; mime_type: string; bytes: number | null }[]) : [];
  return items.map((item) => ({
    ...item,
    attachments: rows.filter((r) => r.item_id === item.id).map((r) => ({ id: r.id, bucketPath: r.bucket_path, mimeType: r.mime_type, bytes: r.bytes })),
  }));
}
