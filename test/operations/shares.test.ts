/** Items shared with a person: readable by id, owner-kept fields refused by name, favorites apart. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { get_item } from '../../src/operations/get_item.js';
import { update_items } from '../../src/operations/update_items.js';
import { delete_items } from '../../src/operations/delete_items.js';
import { createShare, removeShare } from '../../src/domain/lists/shares.js';
import { ApiError } from '../../src/core/errors.js';

describe('shared items', () => {
  const { server } = useTestServer({ accounts: [] });
  let owner: TestAccount;
  let friend: TestAccount;
  beforeAll(async () => {
    owner = await server.account('Owner');
    friend = await server.account('Friend');
  });

  it('shares one item: readable, title and body editable, owner fields refused by name', async () => {
    const id = (await create_items(server.context(owner), { items: [{ title: 'Plan trip', body: 'Ideas' }] })).items[0]!.id;
    await createShare(server.db, { itemId: id }, friend.userId);
    const seen = await get_item(server.context(friend), { id });
    expect(seen).toMatchObject({ isSharedWithMe: true, editable: 'titleAndBody', title: 'Plan trip' });
    await update_items(server.context(friend), { items: [{ itemId: id, title: 'Plan trip to Rome', body: 'Colosseum' }] });
    expect((await get_item(server.context(owner), { id })).body).toBe('Ideas\n\nColosseum');
    const refused = update_items(server.context(friend), { items: [{ itemId: id }], taskStatus: 'completed', dueAt: '2026-12-01' });
    await expect(refused).rejects.toThrow(ApiError);
    await expect(refused).rejects.toThrow(/taskStatus, dueAt belong to its owner/);
  });

  it("shares a whole list: every field editable, but the owner's favorite stays the owner's", async () => {
    const list = await create_list(server.context(owner), { name: 'Shopping', template: 'tasks' });
    const id = (await create_items(server.context(owner), { listId: list.id, items: [{ title: 'Milk' }] })).items[0]!.id;
    await createShare(server.db, { listId: list.id }, friend.userId);
    expect((await get_item(server.context(friend), { id })).editable).toBe('all');
    const updated = await update_items(server.context(friend), { items: [{ itemId: id }], taskStatus: 'completed', favorited: true });
    expect(updated.items[0]).toMatchObject({ taskStatus: 'completed', favorited: true, isSharedWithMe: true });
    expect((await get_item(server.context(owner), { id })).favorited).toBe(false);
    expect((await get_item(server.context(friend), { id })).favorited).toBe(true);
  });

  it("never lets the recipient delete the owner's item, and ends access when the share is removed", async () => {
    const id = (await create_items(server.context(owner), { items: [{ title: 'Private later' }] })).items[0]!.id;
    const share = await createShare(server.db, { itemId: id }, friend.userId);
    expect((await delete_items(server.context(friend), { itemIds: [id] })).refused).toEqual([id]);
    await removeShare(server.db, share.id);
    expect((await friend.sdk.GET('/items/{id}', { params: { path: { id } } })).response.status).toBe(404);
  });
});
