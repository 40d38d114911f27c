/**
 * The attachments of an import: each file is fetched before its list's transaction and the
 * item bodies name the copies.
 * @see docs/export.md "What an import does"
 */
import type { Config } from '../../core/config.js';
import { checkSignature } from '../../files/signing.js';
import { fileStore } from '../../files/open.js';
import type { ImageType } from '../../files/sniff.js';
import { downloadImages, type Downloads, type ImageContext } from '../media/images.js';
import { quotaMessage, storageLeft } from '../media/storage.js';
import { checkedImage, ImageRejected, MAX_IMAGE_BYTES, newBucketPath } from '../media/uploads.js';
import type { PlanItem, PlanList } from './import-plan.js';

const ATTACHMENT_PREFIX = 'listkeeper-attachment://attachment/';

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
 * The attachment files of a plan list, fetched before its transaction: a link this service
 * signed is read from its own store (its signature is the permission, as for anyone holding
 * the link); any other is downloaded like an image URL, SSRF-guarded and within the limits of
 * one call and the person's storage quota. What cannot be fetched is a warning.
 */
export async function fetchAttachments(ctx: ImageContext, list: PlanList, config: Config, now: Date, warnings: string[]): Promise<Downloads> {
  const urls = [...new Set(list.items.flatMap((i) => i.attachments.map((a) => a.url)))];
  const downloads: Downloads = new Map();
  if (urls.length === 0) return downloads;
  const own = `${config.baseUrl}/files/`;
  const remote = urls.filter((u) => !u.startsWith(own));
  let left = await storageLeft(ctx.db, config, ctx.principal.userId);
  for (const url of urls.filter((u) => u.startsWith(own))) {
    const parsed = new URL(url);
    const bucketPath = decodeURIComponent(parsed.pathname.slice('/files/'.length));
    const refused = await checkSignature(
      ctx.db,
      'GET',
      bucketPath,
      parsed.searchParams.get('expires') ?? undefined,
      parsed.searchParams.get('sig') ?? undefined,
      now,
    );
    const file = refused ? null : await fileStore(config).read(bucketPath);
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
  for (const [url, result] of downloads)
    if ('error' in result) warnings.push(`'${list.name}': the attachment ${url.split('?')[0]} was not brought over: ${result.error}`);
  return downloads;
}
