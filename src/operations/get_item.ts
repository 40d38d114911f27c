import type { Knex } from 'knex';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfm } from 'micromark-extension-gfm';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import type { Handler } from '../core/context.js';
import { firstValueText, itemRowDto, loadItemForReading } from '../domain/items.js';
import { prepareBody } from '../domain/body-outlines.js';
import { propertyDto } from '../domain/lists.js';
import { valueText } from '../domain/values.js';
import { itemGuidance } from '../domain/guidance.js';
import { itemUrls } from '../domain/links.js';
import { iso } from '../domain/time.js';
import { bodyVersion, readForEditing } from '../domain/body/index.js';
import { notFound } from '../core/errors.js';
import { signedAttachments } from '../domain/attachments.js';

export const ATTACHMENT_SCHEME = 'listkeeper-attachment';

/** GET /items/{id}: one item with everything about it; `forEditing` puts a handle before every block. */
export const get_item: Handler<'get_item'> = async (ctx, input) => {
  const { db, principal, config, services } = ctx;
  // The item, its list, attachments and chat in one statement.
  const found = await loadItemForReading(db, principal.userId, input.id);
  if (!found) throw notFound(`No item ${input.id} in your workspace (it may be in the trash: list_deleted shows it).`);
  const { row, access } = found.item;
  const list = found.list;
  const favorited = access === 'own' ? row.favorited : await recipientFavorite(db, principal.userId, row.id);
  const base = itemRowDto(row, list, { isSharedWithMe: access !== 'own', favorited });
  const body = row.body ?? '';
  const cells: Record<string, string> = {};
  for (const p of list.properties) {
    const text = p.id === 'status' ? (base.taskStatus ?? '') : p.id === 'dueDate' ? (base.dueAt ?? '') : valueText(p, row.values[p.id]);
    if (text !== '') cells[p.name] = text;
  }
  const attachments = await signedAttachments(ctx, row.id, input.includeImageUrls === true, found.attachments);
  if (input.forEditing) await prepareBody(db, row.id, body);
  const version = bodyVersion(body);
  return {
    ...base,
    body: row.body === null ? null : input.forEditing ? readForEditing(body, version).text : body,
    bodyVersion: version,
    cells,
    ...(access === 'own' ? {} : { editable: access }),
    listName: list.name,
    listIcon: list.icon,
    editedAt: iso(row.edited_at),
    recordingStatus: 'none' as const,
    attachments,
    bodyImages: bodyImages(body, attachments),
    guidance: await itemGuidance(db, row, list, services.now(), found.chat),
    label:
      row.title?.trim() ||
      firstValueText(
        row.values,
        list.properties.map((p) => p.id),
      ) ||
      list.name,
    properties: list.properties.map((p) => propertyDto(p)),
    ...itemUrls(config, row.id),
  };
};

async function recipientFavorite(db: Knex, userId: string, itemId: string): Promise<boolean> {
  return (await db('recipient_favorites').where({ user_id: userId, item_id: itemId }).first()) !== undefined;
}

/** Pictures the body shows in the attachment reference form, with their stored size when known. */
function bodyImages(body: string, attachments: { bucketPath: string; bytes: number | null }[]): { bucketPath: string; alt: string; bytes: number | null }[] {
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
