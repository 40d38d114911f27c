/**
 * The file routes, outside /api/v1 and without a bearer token: the signed URL is the
 * permission. PUT /files/<bucketPath> takes the bytes of an upload slot; GET serves a stored
 * file to the holder of a signed download URL.
 * A bad or missing signature and an expired URL answer 403, a wrong Content-Type, bytes that
 * are not the declared image, or more than 10 MB answer 400; each as `{error, code}`.
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { checkSignature } from '../files/signing.js';
import { fileStore, isBucketPath } from '../files/open.js';
import { uploadLimit } from '../domain/media/storage.js';
import { checkedImage, findUploadSlot, ImageRejected, markUploaded, MAX_IMAGE_BYTES, storedFileType } from '../domain/media/uploads.js';
import { type ApiError, invalid, notFound, toolError } from '../core/errors.js';

export const FILES_ROOT = '/files/';

export interface FileRouteDeps {
  db: Knex;
  config: Config;
  now(): Date;
}

function refuse(ctx: Context, message: string): void {
  ctx.status = 403;
  ctx.body = { error: message, code: 'unauthorized' };
}

async function signedPath(ctx: Context, deps: FileRouteDeps, method: 'GET' | 'PUT'): Promise<string | null> {
  const bucketPath = ctx.path.slice(FILES_ROOT.length);
  if (!isBucketPath(bucketPath)) throw notFound(`No file ${bucketPath}.`);
  const problem = await checkSignature(deps.db, method, bucketPath, ctx.query.expires, ctx.query.sig, deps.now());
  if (problem) {
    refuse(ctx, problem);
    return null;
  }
  return bucketPath;
}

/** PUT /files/<bucketPath>: the bytes of one upload slot, checked while they stream in. */
export function putFile(deps: FileRouteDeps) {
  return async function acceptUpload(ctx: Context): Promise<void> {
    const bucketPath = await signedPath(ctx, deps, 'PUT');
    if (!bucketPath) return;
    const slot = await findUploadSlot(deps.db, bucketPath);
    if (!slot) throw notFound(`No upload slot ${bucketPath}.`);
    if (slot.uploaded_at) throw toolError(`Slot ${bucketPath} holds an upload already; reserve a new slot with create_image_upload.`);
    const type = ctx.request.type;
    if (type !== slot.mime_type) throw invalid(`Content-Type must be ${slot.mime_type}, the type this slot was made for; received '${type || 'none'}'.`);
    const declared = ctx.request.length;
    const limit = await uploadLimit(deps.db, deps.config, slot.owner_id);
    if (declared !== undefined && declared > MAX_IMAGE_BYTES)
      throw refusedMidBody(ctx, `The image is ${declared} bytes; at most ${MAX_IMAGE_BYTES} (10 MB) are accepted.`);
    if (declared !== undefined && declared > limit.bytes) throw refusedMidBody(ctx, `Upload refused: ${limit.tooLarge}`);
    let bytes: number;
    try {
      bytes = await fileStore(deps.config).write(bucketPath, checkedImage(ctx.req, limit.bytes, slot.mime_type, undefined, limit.tooLarge));
    } catch (err) {
      if (err instanceof ImageRejected) throw refusedMidBody(ctx, `Upload refused: ${err.message}`);
      throw err;
    }
    const row = await markUploaded(deps.db, bucketPath, bytes, deps.now());
    if (!row) throw toolError(`Slot ${bucketPath} received another upload at the same time; reserve a new slot.`);
    ctx.status = 200;
    ctx.body = { bucketPath, mimeType: row.mime_type, bytes };
  };
}

/**
 * A refusal while the body may still be arriving: answer, then close the connection rather
 * than read the rest of a body that is refused anyway.
 */
function refusedMidBody(ctx: Context, message: string): ApiError {
  ctx.set('Connection', 'close');
  ctx.res.once('finish', () => ctx.req.destroy());
  return invalid(message);
}

/** GET /files/<bucketPath>: a stored file, for the holder of a signed download URL. */
export function getFile(deps: FileRouteDeps) {
  return async function serveFile(ctx: Context): Promise<void> {
    const bucketPath = await signedPath(ctx, deps, 'GET');
    if (!bucketPath) return;
    const mimeType = await storedFileType(deps.db, bucketPath);
    const file = await fileStore(deps.config).read(bucketPath);
    if (!file || !mimeType) throw notFound(`No file ${bucketPath}.`);
    ctx.status = 200;
    ctx.type = mimeType;
    ctx.length = file.bytes;
    ctx.set('Cache-Control', 'private, max-age=300');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = file.stream;
  };
}
