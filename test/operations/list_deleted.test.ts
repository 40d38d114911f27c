import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { delete_items } from '../../src/operations/delete_items.js';
import { list_deleted } from '../../src/operations/list_deleted.js';

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
    expect(rest.data).toEqual({ count: 0, items: [] });
  });
});
