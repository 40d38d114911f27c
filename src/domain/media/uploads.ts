/**
 * Image upload slots (POST /uploads) and what the service checks on the bytes that arrive at
 * a slot: size while streaming, and the real type by magic bytes.
 * @see openapi/openapi.yaml create_image_upload
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { EXTENSIONS, SNIFF_BYTES, sniffImage, type ImageType } from '../../files/sniff.js';
import { signedFileUrl } from '../../files/signing.js';

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const UPLOAD_VALID_SECONDS = 7200;
/** Lifetime of the signed download URLs on attachments (`includeImageUrls`). */
export const DOWNLOAD_URL_SECONDS = 900;

export interface UploadRow {
  bucket_path: string;
  owner_id: string;
  mime_type: ImageType;
  expires_at: Date;
  bytes: number | null;
  uploaded_at: Date | null;
}

/** A new file's bucket path: `u/<owner id>/<file id>.<ext>`. */
export function newBucketPath(ownerId: string, mimeType: ImageType): string {
  return `u/${ownerId}/${randomUUID()}.${EXTENSIONS[mimeType]}`;
}

/** Reserves `count` slots for `mimeType`, each with a signed PUT URL valid UPLOAD_VALID_SECONDS. */
export async function createUploadSlots(
  db: Knex,
  baseUrl: string,
  ownerId: string,
  mimeType: ImageType,
  count: number,
  now: Date,
): Promise<{ uploadUrl: string; bucketPath: string }[]> {
  const expiresAt = new Date(now.getTime() + UPLOAD_VALID_SECONDS * 1000);
  const rows = Array.from({ length: count }, () => ({
    bucket_path: newBucketPath(ownerId, mimeType),
    owner_id: ownerId,
    mime_type: mimeType,
    expires_at: expiresAt,
  }));
  await db('uploads').insert(rows);
  return Promise.all(rows.map(async (r) => ({ uploadUrl: await signedFileUrl(db, baseUrl, 'PUT', r.bucket_path, expiresAt), bucketPath: r.bucket_path })));
}

/** Bytes refused on their way in: too many, or not the image they claim to be. */
export class ImageRejected extends Error {}

/**
 * Passes `source` through, failing as soon as it exceeds `maxBytes` (without reading the
 * rest) or its first bytes are not an image of type `expected` (any of the four when null).
 * `onType` learns the sniffed type.
 */
export async function* checkedImage(
  source: AsyncIterable<Buffer | string> | Iterable<Buffer>,
  maxBytes: number,
  expected: ImageType | null,
  onType: (type: ImageType) => void = () => undefined,
  tooLarge = `the image is larger than ${maxBytes} bytes (${maxBytes / 1024 / 1024} MB), the most accepted.`,
): AsyncGenerator<Buffer> {
  let size = 0;
  let head: Buffer | null = Buffer.alloc(0);
  const check = (bytes: Buffer) => {
    const type = sniffImage(bytes);
    if (!type) throw new ImageRejected(`the bytes are not a PNG, JPEG, HEIC or WebP image${expected ? ` (${expected} was declared)` : ''}.`);
    if (expected && type !== expected) throw new ImageRejected(`the bytes are ${type}, not the declared ${expected}.`);
    onType(type);
  };
  for await (const raw of source) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
    size += chunk.length;
    if (size > maxBytes) throw new ImageRejected(tooLarge);
    if (head) {
      head = Buffer.concat([head, chunk]);
      if (head.length >= SNIFF_BYTES) {
        check(head);
        head = null;
      }
    }
    yield chunk;
  }
  if (head) check(head);
}

/** The upload slot at `bucketPath`, if there is one. */
export async function findUploadSlot(db: Knex, bucketPath: string): Promise<UploadRow | undefined> {
  return (await db('uploads').where({ bucket_path: bucketPath }).first()) as UploadRow | undefined;
}

/** Records the bytes a slot received; undefined when another upload to the slot won. */
export async function markUploaded(db: Knex, bucketPath: string, bytes: number, now: Date): Promise<UploadRow | undefined> {
  const [row] = (await db('uploads')
    .where({ bucket_path: bucketPath })
    .whereNull('uploaded_at')
    .update({ bytes, uploaded_at: now })
    .returning('*')) as UploadRow[];
  return row;
}

/** The type of the file stored at `bucketPath` (an attachment's, else an upload slot's), or null for none. */
export async function storedFileType(db: Knex, bucketPath: string): Promise<string | null> {
  const attachment = (await db('attachments').where({ bucket_path: bucketPath }).first('mime_type')) as { mime_type: string } | undefined;
  if (attachment) return attachment.mime_type;
  const upload = (await db('uploads').where({ bucket_path: bucketPath }).first('mime_type')) as { mime_type: string } | undefined;
  return upload?.mime_type ?? null;
}
