import type { Handler } from '../core/context.js';
import { createUploadSlots, MAX_IMAGE_BYTES, UPLOAD_VALID_SECONDS } from '../domain/media/uploads.js';
import { assertStorageLeft } from '../domain/media/storage.js';

/**
 * POST /uploads: 1 to 10 slots for one image type, each a signed PUT URL served by this
 * service (/files/…) and the bucket path to pass in `imageUrls` afterwards. Refused when the
 * account's storage is full; `maxBytes` is the smaller of the image limit and the storage left.
 * @see openapi/openapi.yaml create_image_upload
 */
export const create_image_upload: Handler<'create_image_upload'> = async ({ db, principal, config, services }, input) => {
  const left = await assertStorageLeft(db, config, principal.userId);
  const uploads = await createUploadSlots(db, config.baseUrl, principal.userId, input.mimeType, input.count ?? 1, services.now());
  return { uploads, maxBytes: Math.min(MAX_IMAGE_BYTES, left), validForSeconds: UPLOAD_VALID_SECONDS };
};
