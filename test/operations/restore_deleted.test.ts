import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { delete_items } from '../../src/operations/delete_items.js';
import { restore_deleted } from '../../src/operations/restore_deleted.js';
import { list_items } from '../../src/operations/list_items.js';
import { get_item } from '../../src/operations/get_item.js';
import { purgeExpired } from '../../src/domain/trash/trash.js';
import { ApiError } from '../../src/core/errors.js';

describe('restore_deleted', () => {
  const { server, ada } = useTestServer();
  const ctx = () => server.context(ada);
  /** Trashes a list with its items the way delete_list does: the items remember the list. */
  const trashList = async (listId: string) => {
    const now = new Date();
    const purges = new Date(now.getTime() + 30 * 86400000);
    await server.db('items').where({ list_id: listId }).whereNull('deleted_at').update({ deleted_at: now, purges_at: purges, deleted_with_list: listId });
    await server.db('lists').where({ id: listId }).update({ deleted_at: now, purges_at: purges });
  };

  it('brings an item back to its live list, and into reads', async () => {
    const id = (await create_items(ctx(), { items: [{ title: 'back' }] })).items[0]!.id;
    await delete_items(ctx(), { itemIds: [id] });
    const result = await restore_deleted(ctx(), { type: 'item', id });
    expect(result).toEqual({ restored: true, alreadyLive: false, type: 'item', id, title: 'back', restoredItems: 0, movedToDefaultList: false });
    expect((await list_items(ctx(), {})).items.map((i) => i.id)).toContain(id);
  });

  it('succeeds with alreadyLive for something live', async () => {
    const id = (await create_items(ctx(), { items: [{ title: 'live' }] })).items[0]!.id;
    expect(await restore_deleted(ctx(), { type: 'item', id })).toMatchObject({ restored: false, alreadyLive: true });
  });

  it('refuses an item whose list is still in the trash, saying to restore the list', async () => {
    const list = await create_list(ctx(), { name: 'Trip' });
    const id = (await create_items(ctx(), { listId: list.id, items: [{ title: 'passport' }] })).items[0]!.id;
    await trashList(list.id);
    const attempt = restore_deleted(ctx(), { type: 'item', id });
    await expect(attempt).rejects.toThrow(ApiError);
    await expect(attempt).rejects.toThrow(/'Trip', which is in the trash too; restore the list/);
  });

  it('brings a list back with exactly the items deleted with it', async () => {
    const list = await create_list(ctx(), { name: 'Garden' });
    const made = await create_items(ctx(), { listId: list.id, items: [{ title: 'earlier' }, { title: 'a' }, { title: 'b' }] });
    await delete_items(ctx(), { itemIds: [made.items[0]!.id] });
    await trashList(list.id);
    const result = await restore_deleted(ctx(), { type: 'list', id: list.id });
    expect(result).toMatchObject({ restored: true, type: 'list', title: 'Garden', restoredItems: 2 });
    expect((await list_items(ctx(), { listId: list.id })).items.map((i) => i.title).sort()).toEqual(['a', 'b']);
  });

  it('lands an item whose list was purged on the default list for its kind', async () => {
    const list = await create_list(ctx(), { name: 'Old notes' });
    const id = (await create_items(ctx(), { listId: list.id, items: [{ title: 'keep me' }] })).items[0]!.id;
    await delete_items(ctx(), { itemIds: [id] });
    await trashList(list.id);
    // The list's retention ends before the item's.
    await server
      .db('lists')
      .where({ id: list.id })
      .update({ purges_at: new Date(Date.now() - 1000) });
    expect(await purgeExpired(server.db, new Date())).toMatchObject({ lists: 1 });
    const result = await restore_deleted(ctx(), { type: 'item', id });
    expect(result).toMatchObject({ restored: true, movedToDefaultList: true });
    expect((await get_item(ctx(), { id })).listName).toBe('Notes');
  });

  it("answers 404 for another account's item, through REST and MCP", async () => {
    const id = (await create_items(ctx(), { items: [{ title: 'mine' }] })).items[0]!.id;
    await delete_items(ctx(), { itemIds: [id] });
    const bea = await server.account('Bea');
    expect((await bea.sdk.POST('/trash/restore', { body: { type: 'item', id } })).response.status).toBe(404);
    const mcp = await (await server.mcp(bea)).callTool({ name: 'restore_deleted', arguments: { type: 'item', id } });
    expect(mcp.isError).toBe(true);
  });
});
