/**
 * Attaching images to items from `imageUrls`.
 * Not built yet: uploads and downloads arrive with the uploads issue; until then every URL
 * is reported under `imageFailures` with this reason, and nothing is attached.
 */
import type { Knex } from 'knex';
import type { OperationContext } from '../operations/types.js';

export interface ImageRequest { index: number; itemId: string; urls: string[] }
export interface ImageResult { attached: number; failures: { index: number; itemId: string | null; url: string; reason: string }[] }

export async function attachImages(_ctx: OperationContext, _trx: Knex, requests: ImageRequest[]): Promise<ImageResult> {
  const failures = requests.flatMap((r) => r.urls.map((url) => ({ index: r.index, itemId: r.itemId, url, reason: 'Image attachments are not available on this server yet; the item was saved without it.' })));
  return { attached: 0, failures };
}
