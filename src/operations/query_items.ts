import type { Handler } from '../core/context.js';
import { keepsDueDate, keepsStatus, propertyDto, resolveList } from '../domain/lists.js';
import { findProperty, propertyNames } from '../domain/properties.js';
import { applySort, applyWhere, type WhereClause } from '../domain/query.js';
import { itemRowDto, type ItemDbRow } from '../domain/items.js';
import { withImageUrls } from '../domain/attachments.js';
import { toolError } from '../core/errors.js';
import { getUser } from '../domain/accounts.js';

/**
 * POST /items/query: filter, sort, count or sum the items of one list. Count and sum run in
 * the database (one aggregate statement), never by loading rows.
 */
export const query_items: Handler<'query_items'> = async (ctx, input) => {
  const { db, principal } = ctx;
  const list = await resolveList(db, principal.userId, input.listId);
  const keeps = { status: keepsStatus(list), due: keepsDueDate(list), timeZone: (await getUser(db, principal.userId)).timezone };
  const mode = input.mode ?? 'list';
  const base = () => {
    const q = db('items').where({ list_id: list.id }).whereNull('deleted_at').where('is_template', false);
    if (!input.includeArchived) q.whereNull('archived_at');
    if (input.createdAfter) q.where('created_at', '>=', input.createdAfter);
    if (input.createdBefore) q.where('created_at', '<', input.createdBefore);
    if (input.updatedAfter) q.where('updated_at', '>=', input.updatedAfter);
    if (input.updatedBefore) q.where('updated_at', '<', input.updatedBefore);
    applyWhere(q, (input.where ?? []) as WhereClause[], list.properties, keeps);
    return q;
  };
  const header = { mode, listId: list.id, listName: list.name, listIcon: list.icon, properties: list.properties.map((p) => propertyDto(p)) };
  const offset = input.offset ?? 0;

  if (mode === 'sum') {
    if (!input.sumPropertyId) throw toolError('mode sum needs sumPropertyId: the id or name of a number property.');
    const property = findProperty(list.properties, input.sumPropertyId);
    if (!property) throw toolError(`Unknown property '${input.sumPropertyId}'; valid: ${propertyNames(list.properties)}.`);
    if (property.type !== 'number') {
      const numbers = list.properties.filter((p) => p.type === 'number').map((p) => p.name);
      throw toolError(
        `sumPropertyId '${property.name}' is a ${property.type} property; sum needs a number property${numbers.length ? ` (${numbers.join(', ')})` : ', and this list has none'}.`,
      );
    }
    const [row] = (await base().select(
      db.raw('count(*)::int AS n'),
      db.raw(`coalesce(sum(CASE WHEN jsonb_typeof("values"->?) = 'number' THEN ("values"->>?)::numeric END), 0)::float8 AS total`, [property.id, property.id]),
    )) as { n: number; total: number }[];
    return { ...header, count: row!.n, sum: row!.total, sumPropertyId: property.id, items: [], offset: 0, hasMore: false };
  }
  if (mode === 'count') {
    const [row] = (await base().count({ n: '*' })) as { n: number }[];
    return { ...header, count: Number(row!.n), sum: null, sumPropertyId: null, items: [], offset: 0, hasMore: false };
  }
  const limit = input.limit ?? 50;
  const q = base()
    .select('*', db.raw('count(*) OVER () AS total_matching'))
    .offset(offset)
    .limit(limit + 1);
  applySort(q, input.sort ?? null, list.properties, keeps);
  const rows = (await q) as (ItemDbRow & { total_matching: number })[];
  const page = rows.slice(0, limit);
  const items = page.map((r) => itemRowDto(r, list));
  const total = rows[0]?.total_matching ?? (offset > 0 ? Number(((await base().count({ n: '*' })) as { n: number }[])[0]!.n) : 0);
  return {
    ...header,
    count: Number(total),
    sum: null,
    sumPropertyId: null,
    items: input.includeImageUrls ? await withImageUrls(ctx, items) : items,
    offset,
    hasMore: rows.length > limit,
  };
};
