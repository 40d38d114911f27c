/**
 * Export: the whole workspace as one document in the listkeeper export format (version 1, the
 * schema WorkspaceExport; docs/export.md), and one list as CSV. Both read live lists and the
 * live items on them, archived ones included; the trash is left out.
 * @see openapi/openapi.yaml export_workspace, export_list_csv
 */
import type { Knex } from 'knex';
import { stringify } from 'csv-stringify/sync';
import { toCsvCell } from './csv-cells.js';
import type { components } from '../../generated/api.js';
import { signedFileUrl } from '../../files/signing.js';
import { liveLists, resolveList, type ListRow, type SystemRole } from '../lists/lists.js';
import { valueText, type StoredValues } from '../lists/values.js';
import type { AttachmentRow, ItemDbRow } from '../items/row-types.js';
import { iso, localNow } from '../time.js';
import { timeZoneOf } from '../accounts/accounts.js';

export type WorkspaceExport = components['schemas']['WorkspaceExport'];
type ExportList = components['schemas']['ExportList'];
type ExportItem = components['schemas']['ExportItem'];

export const EXPORT_FORMAT = 'listkeeper.export';
export const EXPORT_VERSION = 1;
/**
 * How long the attachment links of an export stay valid: long enough to import the file on
 * another listkeeper right away, short enough that a copy of the file found later, or a link
 * to an item deleted since, gives nothing away. An import here reads its own files without them.
 */
export const EXPORT_LINK_SECONDS = 3600;
/** Items read per query while exporting. */
const PAGE = 2000;

const HUB_NAMES: Record<SystemRole, NonNullable<ExportList['hubList']>> = { tasks: 'tasks', notes: 'notes', life_admin: 'lifeAdmin' };

/** The export format's name for a hub list role, and back. */
export function hubListOf(role: SystemRole | null): ExportList['hubList'] {
  return role ? HUB_NAMES[role] : null;
}
export function systemRoleOf(hub: ExportList['hubList'] | undefined): SystemRole | null {
  return (Object.entries(HUB_NAMES).find(([, name]) => name === hub)?.[0] as SystemRole | undefined) ?? null;
}

/** Live items of a list that the API shows (no repeating templates), oldest first, a page at a time. */
async function* listItems(db: Knex, listId: string): AsyncGenerator<ItemDbRow[]> {
  let after: { created_at: Date; created_seq: string } | null = null;
  for (;;) {
    const query = db('items')
      .where({ list_id: listId, is_template: false })
      .whereNull('deleted_at')
      .orderBy([{ column: 'created_at' }, { column: 'created_seq' }])
      .limit(PAGE);
    if (after) query.whereRaw('(created_at, created_seq) > (?, ?)', [after.created_at, after.created_seq]);
    const rows = (await query) as (ItemDbRow & { created_seq: string })[];
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < PAGE) return;
    const last = rows.at(-1)!;
    after = { created_at: last.created_at, created_seq: last.created_seq };
  }
}

/** The person's workspace as an export document; attachment links are signed for EXPORT_LINK_SECONDS from `now`. */
export async function exportWorkspace(db: Knex, ownerId: string, baseUrl: string, now: Date): Promise<WorkspaceExport> {
  const timeZone = await timeZoneOf(db, ownerId);
  const linksExpire = new Date(now.getTime() + EXPORT_LINK_SECONDS * 1000);
  const lists: ExportList[] = [];
  for (const list of await liveLists(db, ownerId)) {
    const items: ExportItem[] = [];
    for await (const page of listItems(db, list.id)) {
      const ids = page.map((r) => r.id);
      const chats = groupBy(
        (await db('chat_messages')
          .whereIn('item_id', ids)
          .orderBy([{ column: 'created_at' }, { column: 'id' }])
          .select('item_id', 'author_kind', 'author_name', 'text', 'needs_input', 'created_at')) as {
          item_id: string;
          author_kind: 'person' | 'service' | 'agent';
          author_name: string;
          text: string;
          needs_input: boolean;
          created_at: Date;
        }[],
      );
      const files = groupBy((await db('attachments').whereIn('item_id', ids).orderBy('created_at')) as AttachmentRow[]);
      for (const row of page) {
        const chat = chats.get(row.id) ?? [];
        const attachments = files.get(row.id) ?? [];
        items.push({
          id: row.id,
          externalId: row.external_id,
          title: row.title,
          body: row.body,
          taskStatus: row.task_status,
          dueAt: iso(row.due_at),
          hasDueTime: row.has_due_time,
          completedAt: iso(row.completed_at),
          archivedAt: iso(row.archived_at),
          favorited: row.favorited,
          assignedAgent: row.assigned_agent,
          recurrence: row.recurrence,
          reminderAt: iso(row.reminder_at),
          parentId: row.parent_id,
          labels: row.labels ?? [],
          values: row.values,
          createdAt: row.created_at.toISOString(),
          updatedAt: row.updated_at.toISOString(),
          ...(chat.length
            ? {
                chat: chat.map((m) => ({
                  authorKind: m.author_kind,
                  authorName: m.author_name,
                  text: m.text,
                  needsInput: m.needs_input,
                  createdAt: m.created_at.toISOString(),
                })),
              }
            : {}),
          ...(attachments.length
            ? {
                attachments: await Promise.all(
                  attachments.map(async (a) => ({
                    bucketPath: a.bucket_path,
                    mimeType: a.mime_type,
                    bytes: a.bytes === null ? null : Number(a.bytes),
                    url: await signedFileUrl(db, baseUrl, 'GET', a.bucket_path, linksExpire),
                  })),
                ),
              }
            : {}),
        });
      }
    }
    lists.push({
      id: list.id,
      name: list.name,
      icon: list.icon,
      instructions: list.instructions,
      titleLabel: list.title_label,
      layout: list.layout,
      hubList: hubListOf(list.system_role),
      properties: list.properties,
      items,
    });
  }
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: now.toISOString(), timeZone, lists };
}

function groupBy<T extends { item_id: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const group = out.get(row.item_id);
    if (group) group.push(row);
    else out.set(row.item_id, [row]);
  }
  return out;
}

/** The CSV header of a list: id, the title column, body, one column per property, externalId, createdAt, updatedAt. */
export function csvHeader(list: Pick<ListRow, 'title_label' | 'properties'>): string[] {
  return ['id', list.title_label ?? 'Title', 'body', ...list.properties.map((p) => p.name), 'externalId', 'createdAt', 'updatedAt'];
}

/** One list as CSV text (RFC 4180, a header row); `listId` as the API reads it (an id, `tasks`, `notes` or a name). */
export async function exportListCsv(db: Knex, ownerId: string, listId: string): Promise<{ list: ListRow; csv: string }> {
  const list = await resolveList(db, ownerId, listId);
  const timeZone = await timeZoneOf(db, ownerId);
  const rows: string[][] = [csvHeader(list)];
  for await (const page of listItems(db, list.id)) {
    for (const item of page) {
      rows.push([
        item.id,
        item.title ?? '',
        item.body ?? '',
        ...list.properties.map((p) => cellText(p, item, timeZone)),
        item.external_id ?? '',
        item.created_at.toISOString(),
        item.updated_at.toISOString(),
      ]);
    }
  }
  return { list, csv: stringify(rows.map((row) => row.map(toCsvCell))) };
}

function cellText(property: ListRow['properties'][number], item: ItemDbRow, timeZone: string): string {
  if (property.id === 'status') return item.task_status ? valueText(property, item.task_status) : '';
  if (property.id === 'dueDate') return dueText(item, timeZone);
  const value = (item.values as StoredValues)[property.id];
  if (property.type === 'checkbox') return value === undefined ? '' : String(value === true);
  return valueText(property, value);
}

/** A due date as ISO 8601: the instant when it has a time, else the person's local date. */
function dueText(item: ItemDbRow, timeZone: string): string {
  if (!item.due_at) return '';
  return item.has_due_time === false ? localNow(item.due_at, timeZone).today : item.due_at.toISOString();
}
