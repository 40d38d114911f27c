/**
 * Pictures a body shows in the attachment reference form
 * (`![alt](listkeeper-attachment://attachment/<bucket path>)`).
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfm } from 'micromark-extension-gfm';
import { gfmFromMarkdown } from 'mdast-util-gfm';

export const ATTACHMENT_SCHEME = 'listkeeper-attachment';

/** Pictures the body shows in the attachment reference form, with their stored size when known. */
export function bodyImages(
  body: string,
  attachments: { bucketPath: string; bytes: number | null }[],
): { bucketPath: string; alt: string; bytes: number | null }[] {
  if (!body.includes(`${ATTACHMENT_SCHEME}://`)) return [];
  const prefix = `${ATTACHMENT_SCHEME}://attachment/`;
  const out: { bucketPath: string; alt: string; bytes: number | null }[] = [];
  const walk = (node: { type: string; url?: string; alt?: string | null; children?: unknown[] }) => {
    if (node.type === 'image' && node.url?.startsWith(prefix)) {
      const bucketPath = decodedOrNull(node.url.slice(prefix.length));
      // A reference that is not valid percent-encoding (anyone who can edit the body can write one) names no file.
      if (bucketPath !== null) out.push({ bucketPath, alt: node.alt ?? '', bytes: attachments.find((a) => a.bucketPath === bucketPath)?.bytes ?? null });
    }
    for (const child of node.children ?? []) walk(child as typeof node);
  };
  walk(fromMarkdown(body, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as never);
  return out;
}

function decodedOrNull(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
