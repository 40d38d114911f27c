import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { delete_items } from '../../src/operations/delete_items.js';
import { list_deleted } from '../../src/operations/list_deleted.js';
import { create_list } from '../../src/operations/create_list.js';
import { delete_list } from '../../src/operations/delete_list.js';

describe('list_deleted', () => {
  const { server, ada } = useTestServer();

  it('lists trashed items newest first with purgesAt, type, title, list and a snippet', async () => {
    const made = await create_items(server.context(ada), { items: [{ title: 'first', body: 'Body of the first' }, { title: 'second' }] });
    let clock = new Date('2026-11-20T10:00:00Z');
    const ctx = () => ({ ...server.context(ada), services: { now: () => clock } });
    await delete_items(ctx(), { itemIds: [made.items[0]!.id] });
    clock = new Date('2026-11-21T10:00:00Z');
    await delete_items(ctx(), { itemIds: [made.items[1]!.id] });
    const trash = await list_deleted(server.context(ada), {});
    expect(trash.items.map((e) => [e.type, e.title, e.purgesAt])).toEqual([
      ['item', 'second', '2026-12-21T10:00:00.000Z'],
      ['item', 'first', '2026-12-20T10:00:00.000Z'],
    ]);
    expect(trash.items[1]).toMatchObject({ listName: 'Tasks', snippet: 'Body of the first' });
  });

  it("filters by type and limits per kind, and never shows another account's trash", async () => {
    expect((await list_deleted(server.context(ada), { type: 'list' })).count).toBe(0);
    expect((await list_deleted(server.context(ada), { type: 'item', limit: 1 })).count).toBe(1);
    const bea = await server.account('Bea');
    const rest = await bea.sdk.GET('/trash');
    expect(rest.data).toEqual({ count: 0, items: [], hasMore: false, nextCursor: null });
  });

  it('pages the whole trash with nextCursor, newest first, each entry once, items and lists deleted at the same moment included', async () => {
    const bea = await server.account('Bea');
    const ctx = server.context(bea);
    const loose = await create_items(ctx, { items: Array.from({ length: 9 }, (_, i) => ({ title: `loose ${i}` })) });
    await delete_items(ctx, { itemIds: loose.items.map((i) => i.id) });
    for (let n = 0; n < 3; n++) {
      const list = await create_list(ctx, { name: `List ${n}` });
      await create_items(ctx, { listId: list.id, items: [{ title: `on list ${n} a` }, { title: `on list ${n} b` }] });
      // The list and its items get the very same deletedAt.
      await delete_list(ctx, { id: list.id, confirmDeleteItems: true });
    }
    const everything = await list_deleted(ctx, { limit: 100 });
    expect(everything.hasMore).toBe(false);
    expect(everything.items).toHaveLength(9 + 3 * 2 + 3);
    const paged: typeof everything.items = [];
    let cursor: string | undefined;
    for (let page = 0; page < 30; page++) {
      const result = await list_deleted(ctx, { limit: 2, ...(cursor ? { cursor } : {}) });
      for (const kind of ['item', 'list']) expect(result.items.filter((e) => e.type === kind).length).toBeLessThanOrEqual(2);
      paged.push(...result.items);
      if (!result.hasMore) break;
      cursor = result.nextCursor!;
    }
    // Each kind comes whole, once, newest first; a page holds up to `limit` of each.
    for (const kind of ['item', 'list'])
      expect(paged.filter((e) => e.type === kind).map((e) => e.id)).toEqual(everything.items.filter((e) => e.type === kind).map((e) => e.id));
    expect(paged).toHaveLength(everything.items.length);
    const lists = await list_deleted(ctx, { type: 'list', limit: 1 });
    expect(lists.items.map((e) => e.type)).toEqual(['list']);
    expect(lists.hasMore).toBe(true);
  });

  it('keeps up to `limit` of each kind on a page: a list deleted before the 25th newest of 29 items is on the first page', async () => {
    const cy = await server.account('Cy');
    let clock = new Date('2026-11-01T10:00:00Z');
    const ctx = () => ({ ...server.context(cy), services: { ...server.context(cy).services, now: () => clock } });
    const tick = () => (clock = new Date(clock.getTime() + 60_000));
    const made = await create_items(ctx(), { items: Array.from({ length: 29 }, (_, i) => ({ title: `item ${i}` })) });
    const ids = made.items.map((i) => i.id);
    // Four items, then the list, then the 25 newest items.
    for (const id of ids.slice(0, 4)) {
      tick();
      await delete_items(ctx(), { itemIds: [id] });
    }
    const list = await create_list(ctx(), { name: 'Old plans' });
    tick();
    await delete_list(ctx(), { id: list.id });
    for (const id of ids.slice(4)) {
      tick();
      await delete_items(ctx(), { itemIds: [id] });
    }
    const first = await list_deleted(ctx(), {});
    expect(first.items.filter((e) => e.type === 'item')).toHaveLength(25);
    expect(first.items.filter((e) => e.type === 'list').map((e) => e.id)).toEqual([list.id]);
    expect(first.items.map((e) => e.deletedAt)).toEqual([...first.items.map((e) => e.deletedAt)].sort().reverse());
    expect(first.hasMore).toBe(true);
    const second = await list_deleted(ctx(), { cursor: first.nextCursor! });
    expect(second.items.map((e) => [e.type, e.title])).toEqual([3, 2, 1, 0].map((i) => ['item', `item ${i}`]));
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
  });
});
