/**
 * The attachments of an import: each file is fetched before its list's transaction and the
 * item bodies name the copies. Only the importing person's own files are read from this
 * service's store; links elsewhere are downloaded through the outbound guard.
 * @see docs/export.md "What an import does"
 */
import type { Config } from '../../core/config.js';
import { fileStore, isBucketPath } from '../../files/open.js';
import type { ImageType } from '../../files/sniff.js';
import { downloadImages, type Downloads, type ImageContext } from '../media/images.js';
import { quotaMessage, storageLeft } from '../media/storage.js';
import { checkedImage, ImageRejected, MAX_IMAGE_BYTES, newBucketPath } from '../media/uploads.js';
import type { PlanItem, PlanList } from './import-plan.js';

const ATTACHMENT_PREFIX = 'listkeeper-attachment://attachment/';

/** The bucket path of a link to this service's files (`own`) when the file is `userId`'s own, else null. */
function ownFilePath(url: string, own: string, userId: string): string | null {
  let bucketPath: string;
  try {
    bucketPath = decodeURIComponent(new URL(url).pathname.slice(new URL(own).pathname.length));
  } catch {
    return null;
  }
  return isBucketPath(bucketPath) && bucketPath.startsWith(`u/${userId}/`) ? bucketPath : null;
}

/** The body with each attachment the import brought over named by its new path. */
export function rewriteBody(item: PlanItem, downloads: Downloads): string | null {
  let body = item.body;
  if (!body) return body;
  for (const a of item.attachments) {
    const stored = downloads.get(a.url);
    if (stored && !('error' in stored)) body = body.split(`${ATTACHMENT_PREFIX}${a.bucketPath}`).join(`${ATTACHMENT_PREFIX}${stored.bucketPath}`);
  }
  return body;
}

/**
 * The attachment files of a plan list, fetched before its transaction: a link to this
 * service's own files is read from its store only when the file is the importing person's own
 * (another account's file stays there, signed link or not: an export is not a way to copy
 * someone's files); any other is downloaded like an image URL, SSRF-guarded and within the
 * limits of one call and the person's storage quota. What cannot be fetched is a warning, and
 * is not in the answer.
 */
export async function fetchAttachments(ctx: ImageContext, list: PlanList, config: Config, warnings: string[]): Promise<Downloads> {
  const urls = [...new Set(list.items.flatMap((i) => i.attachments.map((a) => a.url)))];
  const downloads: Downloads = new Map();
  if (urls.length === 0) return downloads;
  const own = `${config.baseUrl}/files/`;
  const remote = urls.filter((u) => !u.startsWith(own));
  let left = await storageLeft(ctx.db, config, ctx.principal.userId);
  for (const url of urls.filter((u) => u.startsWith(own))) {
    const bucketPath = ownFilePath(url, own, ctx.principal.userId);
    const refused = bucketPath ? null : "it is another account's file (only your own files are read from this service).";
    const file = bucketPath ? await fileStore(config).read(bucketPath) : null;
    if (!file) {
      downloads.set(url, { error: refused ?? 'the file is no longer there.' });
      continue;
    }
    if (file.bytes > left) {
      file.stream.destroy();
      downloads.set(url, { error: quotaMessage(config, left) });
      continue;
    }
    try {
      let type: ImageType | null = null;
      const checked = checkedImage(file.stream, MAX_IMAGE_BYTES, null, (t) => (type = t));
      const first = await checked.next();
      const target = newBucketPath(ctx.principal.userId, type!);
      const rest = async function* () {
        if (!first.done) yield first.value;
        yield* checked;
      };
      const bytes = await fileStore(config).write(target, rest());
      left -= bytes;
      downloads.set(url, { bucketPath: target, mimeType: type!, bytes });
    } catch (err) {
      if (!(err instanceof ImageRejected)) throw err;
      file.stream.destroy();
      downloads.set(url, { error: err.message });
    }
  }
  if (remote.length) for (const [url, result] of await downloadImages(ctx, remote)) downloads.set(url, result);
  // What could not be fetched is a warning here, and left out of what the items attach (which would warn again).
  for (const [url, result] of downloads) {
    if (!('error' in result)) continue;
    warnings.push(`'${list.name}': the attachment ${url.split('?')[0]} was not brought over: ${result.error}`);
    downloads.delete(url);
  }
  return downloads;
}
