/**
 * item_values (migration 20261126000100) follows every write that changes what it says: new
 * items, changed values, archiving, the trash and back, a move to another list, a template,
 * the purge. After each step the table is exactly what the items' values make of it, and
 * query_items' count and sum (read from it) agree with a page of the same query.
 */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../../support/server.js';
import { purgeExpired } from '../../../src/domain/trash/trash.js';

describe('item_values, the scalar values count and sum read', () => {
  const { server, ada } = useTestServer();

  /** Rows item_values has and the items' values do not make, and the other way round. */
  async function drift(): Promise<number> {
    const made = `SELECT i.id, i.list_id, s.property_id, s.text_value, s.num_value, i.archived_at IS NOT NULL
                    FROM items i, item_scalar_values(i."values") s WHERE i.deleted_at IS NULL AND NOT i.is_template`;
    const kept = 'SELECT item_id, list_id, property_id, text_value, num_value, archived FROM item_values';
    const { rows } = (await server.db.raw(
      `SELECT (SELECT count(*) FROM (${kept} EXCEPT ${made}) a) + (SELECT count(*) FROM (${made} EXCEPT ${kept}) b) AS n`,
    )) as {
      rows: { n: string }[];
    };
    return Number(rows[0]!.n);
  }

  async function figures(listId: string, includeArchived = false) {
    const where = [{ property: 'Shelf', op: 'eq', value: 'Read' }];
    const body = { listId, where, ...(includeArchived ? { includeArchived } : {}) };
    const page = await ada.sdk.POST('/items/query', { body: { ...body, limit: 200 } as never });
    const count = await ada.sdk.POST('/items/query', { body: { ...body, mode: 'count' } as never });
    const sum = await ada.sdk.POST('/items/query', { body: { ...body, mode: 'sum', sumPropertyId: 'Pages' } as never });
    const list = (await server.db('lists').where({ id: listId }).first('properties')) as { properties: { id: string; name: string }[] };
    const pagesId = list.properties.find((p) => p.name === 'Pages')!.id;
    const pages = page.data!.items.reduce((acc, i) => {
      const value = (i.values as Record<string, unknown>)[pagesId];
      return acc + (typeof value === 'number' ? value : 0);
    }, 0);
    // The page is read from items, count and sum from item_values: they must agree.
    expect(count.data!.count).toBe(page.data!.items.length);
    expect({ count: sum.data!.count, sum: sum.data!.sum }).toEqual({ count: page.data!.items.length, sum: pages });
    return { count: count.data!.count, sum: sum.data!.sum };
  }

  it('keeps to the items through every write, and count and sum agree with a page', async () => {
    const properties = [
      { name: 'Shelf', type: 'select', options: [{ label: 'Read' }, { label: 'Unread' }] },
      { name: 'Pages', type: 'number' },
      { name: 'Owned', type: 'checkbox' },
      { name: 'Tags', type: 'multiSelect', options: [{ label: 'sf' }] },
    ];
    const books = (await ada.sdk.POST('/lists', { body: { name: 'Shelf books', properties } as never })).data!.id;
    const other = (await ada.sdk.POST('/lists', { body: { name: 'Other books', properties } as never })).data!.id;
    const made = await ada.sdk.POST('/items', {
      body: {
        listId: books,
        items: [
          { title: 'Dune', values: { Shelf: 'Read', Pages: 412, Owned: true, Tags: ['sf'] } },
          { title: 'Emma', values: { Shelf: 'Read', Pages: 474 } },
          { title: 'Ulysses', values: { Shelf: 'Unread', Pages: 730 } },
          { title: 'Untitled', values: { Shelf: 'Read' } },
          { title: 'No values' },
        ],
      } as never,
    });
    const [dune, emma, ulysses, untitled] = made.data!.items.map((i) => i.id);
    expect(await drift()).toBe(0);
    // Only scalars have rows: no checkbox, no multiSelect.
    const kinds = (await server.db('item_values').where({ item_id: dune }).select('property_id')) as { property_id: string }[];
    expect(kinds).toHaveLength(2);
    expect(await figures(books)).toEqual({ count: 3, sum: 886 });

    // A value changed, one cleared: the rows follow.
    await ada.sdk.PATCH('/items', {
      body: {
        items: [
          { itemId: ulysses, values: { Shelf: 'Read' } },
          { itemId: emma, values: { Pages: null } },
        ],
      } as never,
    });
    expect(await drift()).toBe(0);
    expect(await figures(books)).toEqual({ count: 4, sum: 1142 });

    // Archived: out of the count unless asked for.
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId: dune }], archived: true } as never });
    expect(await drift()).toBe(0);
    expect(await figures(books)).toEqual({ count: 3, sum: 730 });
    expect(await figures(books, true)).toEqual({ count: 4, sum: 1142 });

    // The trash and back.
    await ada.sdk.DELETE('/items', { body: { itemIds: [ulysses!] } });
    expect(await drift()).toBe(0);
    expect(await figures(books)).toEqual({ count: 2, sum: 0 });
    await ada.sdk.POST('/trash/restore', { body: { type: 'item', id: ulysses! } });
    expect(await drift()).toBe(0);
    expect(await figures(books)).toEqual({ count: 3, sum: 730 });

    // Moved to another list with the same properties: counted there, not here.
    const moved = await ada.sdk.POST('/items/move', { body: { itemIds: [untitled!], listId: other, acknowledgeDataLoss: true } as never });
    expect(moved.response.status).toBe(200);
    expect(await drift()).toBe(0);
    expect(await figures(books)).toEqual({ count: 2, sum: 730 });
    expect((await figures(other)).count).toBe(1);

    // A template is not an item of the list.
    await server.db('items').where({ id: emma }).update({ is_template: true });
    expect(await drift()).toBe(0);
    expect(await figures(books)).toEqual({ count: 1, sum: 730 });
    await server.db('items').where({ id: emma }).update({ is_template: false });

    // Purged: its rows go with it.
    await ada.sdk.DELETE('/items', { body: { itemIds: [ulysses!] } });
    await purgeExpired(server.db, new Date(Date.now() + 400 * 86_400_000));
    expect(await server.db('items').where({ id: ulysses }).first()).toBeUndefined();
    expect(await server.db('item_values').where({ item_id: ulysses })).toEqual([]);
    expect(await drift()).toBe(0);
    expect(await figures(books)).toEqual({ count: 1, sum: 0 });
  });
});
