/**
 * Attaching images to items from `imageUrls`: a bucket path from an upload slot, or a public
 * https image URL the service downloads (SSRF-guarded, size and type checked by magic
 * bytes). A URL that cannot be attached is reported under `imageFailures`; the item is saved.
 * Downloads happen before the write's transaction (`downloadImages`), so a slow remote host
 * never holds the list's lock; what the write did not attach in the end (a refused entry, a
 * rolled-back transaction) is deleted again afterwards (`discardUnattached`).
 * @see openapi/openapi.yaml create_items (imageUrls, imageFailures)
 */
import type { Knex } from 'knex';
import type { OperationContext } from '../../core/context.js';
import { OutboundError, outboundRequest, ResponseTooLarge } from '../../core/outbound.js';
import { fileStore, isBucketPath } from '../../files/open.js';
import type { ImageType } from '../../files/sniff.js';
import { checkedImage, ImageRejected, MAX_IMAGE_BYTES, newBucketPath, type UploadRow } from './uploads.js';
import { quotaMessage, storageLeft } from './storage.js';

export interface ImageRequest {
  index: number;
  itemId: string;
  urls: string[];
}
export interface ImageFailure {
  index: number;
  itemId: string | null;
  url: string;
  reason: string;
}
export interface ImageResult {
  attached: number;
  failures: ImageFailure[];
  /** Bucket paths of downloaded images this call attached (see discardUnattached). */
  downloadedPaths: string[];
}

interface StoredImage {
  bucketPath: string;
  mimeType: ImageType;
  bytes: number;
}
/** Each downloaded URL: where it is stored now, or why it could not be. */
export type Downloads = Map<string, StoredImage | { error: string }>;

const DOWNLOAD_CONCURRENCY = 4;

/** What downloading and attaching needs of a call: the store, the settings, whose images they are (and a log for cleanup). */
export type ImageContext = Pick<OperationContext, 'db' | 'config' | 'log'> & { principal: Pick<OperationContext['principal'], 'userId'> };

/** What one call may still download: URLs, bytes (the per-call cap and the account's quota) and time. */
interface DownloadBudget {
  urls: number;
  bytes: number;
  /** The byte limit that applies, for the refusal: the call's or the account's. */
  bytesReason: 'request' | 'quota';
  deadline: number;
}

/**
 * Downloads and stores every URL among `urls` that is not a bucket path, a few at a time,
 * within the call's budget (IMAGE_URLS_PER_REQUEST, IMAGE_BYTES_PER_REQUEST,
 * IMAGE_SECONDS_PER_REQUEST) and the account's storage left; what does not fit fails with a
 * reason that says which limit it met.
 */
export async function downloadImages(ctx: ImageContext, urls: string[]): Promise<Downloads> {
  const pending = [...new Set(urls.filter((u) => !isBucketPath(u)))];
  const out: Downloads = new Map();
  if (pending.length === 0) return out;
  const limits = ctx.config.imageDownloads;
  const left = await storageLeft(ctx.db, ctx.config, ctx.principal.userId);
  const budget: DownloadBudget = {
    urls: limits.urlsPerRequest,
    bytes: Math.min(limits.bytesPerRequest, left),
    bytesReason: left < limits.bytesPerRequest ? 'quota' : 'request',
    deadline: Date.now() + limits.secondsPerRequest * 1000,
  };
  const worker = async () => {
    for (let url = pending.shift(); url !== undefined; url = pending.shift())
      out.set(url, await downloadOne(ctx, url, budget).catch((err: unknown) => ({ error: reasonOf(err) })));
  };
  await Promise.all(Array.from({ length: Math.min(DOWNLOAD_CONCURRENCY, pending.length) }, worker));
  return out;
}

async function downloadOne(ctx: ImageContext, url: string, budget: DownloadBudget): Promise<StoredImage> {
  const limits = ctx.config.imageDownloads;
  if (budget.urls <= 0)
    throw new ImageRejected(`one call downloads at most ${limits.urlsPerRequest} image URLs (IMAGE_URLS_PER_REQUEST); send the others in another call.`);
  budget.urls--;
  const tooMany = () =>
    budget.bytesReason === 'quota'
      ? new ImageRejected(quotaMessage(ctx.config, Math.max(0, budget.bytes)))
      : new ImageRejected(
          `the images of one call may be ${limits.bytesPerRequest} bytes (${Math.round(limits.bytesPerRequest / 1024 / 1024)} MB) in all (IMAGE_BYTES_PER_REQUEST); send the others in another call.`,
        );
  if (budget.bytes <= 0) throw tooMany();
  const timeLeft = budget.deadline - Date.now();
  if (timeLeft <= 0)
    throw new ImageRejected(
      `the downloads of one call may take ${limits.secondsPerRequest} seconds in all (IMAGE_SECONDS_PER_REQUEST), and they are up; send this one in another call.`,
    );
  // The download stops at what the budget has left when it starts; parallel downloads settle the rest below.
  const cap = Math.min(MAX_IMAGE_BYTES, budget.bytes);
  const response = await outboundRequest(url, {
    maxBytes: cap,
    maxRedirects: 3,
    timeoutMs: Math.min(20000, timeLeft),
    allowPrivate: ctx.config.outboundAllowPrivate,
    headers: { accept: 'image/png, image/jpeg, image/heic, image/webp' },
  }).catch((err: unknown) => {
    // Larger than what the budget had left (not larger than any image may be): say which limit it met.
    throw err instanceof ResponseTooLarge && cap < MAX_IMAGE_BYTES ? tooMany() : err;
  });
  if (response.status < 200 || response.status >= 300) throw new OutboundError(`the server answered HTTP ${response.status}.`);
  budget.bytes -= response.body.length;
  if (budget.bytes < 0) throw tooMany();
  let mimeType: ImageType | null = null;
  const checked = checkedImage([response.body], MAX_IMAGE_BYTES, null, (type) => (mimeType = type));
  // The type is known once the first bytes passed; the path needs it, so check before writing.
  const first = await checked.next();
  const bucketPath = newBucketPath(ctx.principal.userId, mimeType!);
  const rest = async function* () {
    if (!first.done) yield first.value;
    yield* checked;
  };
  const bytes = await fileStore(ctx.config).write(bucketPath, rest());
  return { bucketPath, mimeType: mimeType!, bytes };
}

function reasonOf(err: unknown): string {
  if (err instanceof OutboundError || err instanceof ImageRejected) return `Could not attach this image: ${err.message} The item was saved without it.`;
  throw err;
}

/** Attaches each request's images to its item, in the caller's transaction. */
export async function attachImages(ctx: ImageContext, trx: Knex, requests: ImageRequest[], downloads: Downloads = new Map()): Promise<ImageResult> {
  const failures: ImageFailure[] = [];
  const rows: Record<string, unknown>[] = [];
  const paths = requests.flatMap((r) => r.urls.filter(isBucketPath));
  // FOR SHARE: the cleanup of expired slots (storage.ts) waits for this write, then sees its attachments.
  const slots = paths.length ? ((await trx('uploads').whereIn('bucket_path', paths).where({ owner_id: ctx.principal.userId }).forShare()) as UploadRow[]) : [];
  for (const request of requests) {
    for (const url of request.urls) {
      const fail = (reason: string) => failures.push({ index: request.index, itemId: request.itemId, url, reason });
      if (isBucketPath(url)) {
        const slot = slots.find((s) => s.bucket_path === url);
        if (!slot) fail(`No upload slot ${url} of yours; reserve one with create_image_upload. The item was saved without it.`);
        else if (!slot.uploaded_at) fail(`Nothing was uploaded to ${url} yet: PUT the bytes to its uploadUrl first. The item was saved without it.`);
        else rows.push({ item_id: request.itemId, owner_id: ctx.principal.userId, bucket_path: url, mime_type: slot.mime_type, bytes: slot.bytes });
        continue;
      }
      const stored = downloads.get(url);
      if (!stored) fail('Not a bucket path from create_image_upload, nor an image URL this call downloaded. The item was saved without it.');
      else if ('error' in stored) fail(stored.error);
      else
        rows.push({
          item_id: request.itemId,
          owner_id: ctx.principal.userId,
          bucket_path: stored.bucketPath,
          mime_type: stored.mimeType,
          bytes: stored.bytes,
          source_url: url,
        });
    }
  }
  if (rows.length) await trx('attachments').insert(rows);
  const downloadedPaths = rows.filter((r) => r.source_url !== undefined).map((r) => r.bucket_path as string);
  return { attached: rows.length, failures, downloadedPaths };
}

/**
 * Deletes the downloaded files whose bucket path is not in `kept`: call it once the write's
 * transaction has ended, with the paths it attached if it committed, or none if it did not.
 * Nobody else knows these paths (they are fresh and random), so no one else can use them.
 * A failure to delete is logged and leaves the file: the write itself succeeded or failed already.
 */
export async function discardUnattached(ctx: ImageContext, downloads: Downloads, kept: ReadonlySet<string>): Promise<void> {
  const store = fileStore(ctx.config);
  for (const stored of downloads.values()) {
    if ('error' in stored || kept.has(stored.bucketPath)) continue;
    await store
      .remove(stored.bucketPath)
      .catch((err: unknown) => ctx.log.warn({ err, bucketPath: stored.bucketPath }, 'could not delete an unattached download'));
  }
}

/** Drops an item's attachments (`clearImages`); the stored bytes stay, since a body may still show them. */
export async function clearImages(trx: Knex, itemId: string): Promise<number> {
  return trx('attachments').where({ item_id: itemId }).delete();
}
