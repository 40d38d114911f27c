/**
 * How many bytes of images an account keeps (its quota, STORAGE_QUOTA_MB), and the cleanup of
 * upload slots that expired: a slot never used, or used and never attached, is deleted with
 * its file; an attached one keeps its file (the attachment holds it) and loses only the slot.
 * @see SECURITY.md "Limits and quotas"
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../../core/config.js';
import { toolError } from '../../core/errors.js';
import { fileStore } from '../../files/open.js';
import { MAX_IMAGE_BYTES } from './uploads.js';

/** Bytes the account keeps: each stored file once, attached or uploaded to a slot. */
export async function storageUsed(db: Knex, ownerId: string): Promise<number> {
  const { rows } = (await db.raw(
    `SELECT coalesce(sum(bytes), 0)::bigint AS used FROM (
       SELECT DISTINCT ON (bucket_path) bytes FROM (
         SELECT bucket_path, bytes FROM attachments WHERE owner_id = ?
         UNION ALL
         SELECT bucket_path, bytes FROM uploads WHERE owner_id = ? AND uploaded_at IS NOT NULL
       ) files ORDER BY bucket_path
     ) distinct_files`,
    [ownerId, ownerId],
  )) as { rows: { used: string }[] };
  return Number(rows[0]!.used);
}

/** The account's quota and what it uses of it, as get_context reports them. */
export async function storageOf(db: Knex, config: Pick<Config, 'storageQuotaBytes'>, ownerId: string): Promise<{ usedBytes: number; quotaBytes: number }> {
  return { usedBytes: await storageUsed(db, ownerId), quotaBytes: config.storageQuotaBytes };
}

/** Bytes the account may still store (never negative). */
export async function storageLeft(db: Knex, config: Pick<Config, 'storageQuotaBytes'>, ownerId: string): Promise<number> {
  return Math.max(0, config.storageQuotaBytes - (await storageUsed(db, ownerId)));
}

/** The sentence of a refusal for want of quota. */
export function quotaMessage(config: Pick<Config, 'storageQuotaBytes'>, left: number): string {
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  return `the images of your account may take ${mb(config.storageQuotaBytes)} in all (STORAGE_QUOTA_MB), and ${left === 0 ? 'none' : mb(left)} of it is left; delete items with images to make room, or ask the operator for a larger quota.`;
}

/** Refuses when the account has no storage left. */
export async function assertStorageLeft(db: Knex, config: Pick<Config, 'storageQuotaBytes'>, ownerId: string): Promise<number> {
  const left = await storageLeft(db, config, ownerId);
  if (left === 0) throw toolError(capitalized(quotaMessage(config, 0)));
  return left;
}

/**
 * The most bytes one upload of the account may have: an image's limit, or the storage left
 * when that is less; with the sentence that refuses a larger one.
 */
export async function uploadLimit(db: Knex, config: Pick<Config, 'storageQuotaBytes'>, ownerId: string): Promise<{ bytes: number; tooLarge: string }> {
  const left = await storageLeft(db, config, ownerId);
  if (left < MAX_IMAGE_BYTES) return { bytes: left, tooLarge: quotaMessage(config, left) };
  return { bytes: MAX_IMAGE_BYTES, tooLarge: `the image is larger than ${MAX_IMAGE_BYTES} bytes (10 MB), the most accepted.` };
}

/** How long after its upload URL expired a slot can still be attached before the cleanup deletes it. */
export const SLOT_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the upload slots whose URL expired over a day before `now` (SLOT_GRACE_MS), then the
 * files of those that no item attached; returns how many slots and files went. The slots go
 * first: attaching a slot locks it (attachImages), so once the delete commits no attachment
 * to it can still be in the making, and the attachments read afterwards are all there are.
 */
export async function removeExpiredUploads(
  db: Knex,
  config: Pick<Config, 'dataDir' | 's3'>,
  now: Date,
  log: Pick<Logger, 'warn'>,
): Promise<{ slots: number; files: number }> {
  const cutoff = new Date(now.getTime() - SLOT_GRACE_MS);
  const removed = (await db('uploads')
    .whereIn('bucket_path', db('uploads').where('expires_at', '<', cutoff).select('bucket_path').limit(1000))
    .delete()
    .returning(['bucket_path', 'uploaded_at'])) as { bucket_path: string; uploaded_at: Date | null }[];
  const uploaded = removed.filter((r) => r.uploaded_at !== null).map((r) => r.bucket_path);
  const attached = new Set(uploaded.length ? ((await db('attachments').whereIn('bucket_path', uploaded).distinct().pluck('bucket_path')) as string[]) : []);
  const store = fileStore(config);
  let files = 0;
  for (const bucketPath of uploaded.filter((p) => !attached.has(p))) {
    try {
      await store.remove(bucketPath);
      files++;
    } catch (err) {
      log.warn({ err, bucketPath }, 'could not delete the file of an expired upload slot');
    }
  }
  return { slots: removed.length, files };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
