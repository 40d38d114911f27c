import type { Handler } from '../core/context.js';
import { firstValueText, itemRowDto, loadItemForReading } from '../domain/items/items.js';
import { prepareBody } from '../domain/body/outlines.js';
import { propertyDto } from '../domain/lists/lists.js';
import { valueText } from '../domain/lists/values.js';
import { itemGuidance } from '../domain/chat/guidance.js';
import { itemUrls } from '../domain/items/urls.js';
import { iso } from '../domain/time.js';
import { bodyVersion, readForEditing } from '../domain/body/index.js';
import { notFound } from '../core/errors.js';
import { signedAttachments } from '../domain/items/attachments.js';
import { bodyImages } from '../domain/body/images.js';
import { isRecipientFavorite } from '../domain/lists/shares.js';

/** GET /items/{id}: one item with everything about it; `forEditing` puts a handle before every block. */
export const get_item: Handler<'get_item'> = async (ctx, input) => {
  const { db, principal, config, services } = ctx;
  // The item, its list, attachments, chat and subtasks in one statement.
  const found = await loadItemForReading(db, principal.userId, input.id);
  if (!found) throw notFound(`No item ${input.id} in your workspace (it may be in the trash: list_deleted shows it).`);
  const { row, access } = found.item;
  const list = found.list;
  const favorited = access === 'own' ? row.favorited : await isRecipientFavorite(db, principal.userId, row.id);
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
  const { children } = found;
  return {
    ...base,
    ...(children.length
      ? {
          subtasks: { count: children.length, open: children.filter((c) => c.task_status !== 'completed').length },
          children: children.map((c) => ({ id: c.id, title: c.title, taskStatus: c.task_status, dueAt: iso(c.due_at) })),
        }
      : {}),
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
