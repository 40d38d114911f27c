import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { create_list } from '../../src/operations/create_list.js';
import { delete_list } from '../../src/operations/delete_list.js';
import { update_list } from '../../src/operations/update_list.js';
import { list_lists } from '../../src/operations/list_lists.js';
import { restore_deleted } from '../../src/operations/restore_deleted.js';
import { ApiError } from '../../src/core/errors.js';

interface Row {
  id: string;
  deleted_at: Date | null;
  purges_at: Date | null;
  deleted_with_list: string | null;
}

describe('delete_list', () => {
  const { server, ada } = useTestServer({ env: { TRASH_RETENTION_DAYS: '7' } });
  let bob: TestAccount;
  beforeAll(async () => {
    bob = await server.account('Bob');
  });

  const ctx = (who: TestAccount = ada) => server.context(who);
  const makeList = (name = 'Books', who: TestAccount = ada) => create_list(ctx(who), { name, properties: [{ name: 'Author', type: 'text' }] });
  async function addItems(listId: string, count: number, extra: Record<string, unknown> = {}, who: TestAccount = ada): Promise<string[]> {
    const rows = (await server
      .db('items')
      .insert(Array.from({ length: count }, (_, i) => ({ owner_id: who.userId, list_id: listId, title: `Item ${i}`, ...extra })))
      .returning('id')) as { id: string }[];
    return rows.map((r) => r.id);
  }
  const items = async (listId: string) => (await server.db('items').where({ list_id: listId }).orderBy('id')) as Row[];
  const list = async (id: string) => (await server.db('lists').where({ id }).first()) as Row & { name: string };
  const refusal = async (attempt: Promise<unknown>) => {
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  };

  it('deletes an empty list without confirmation, softly, with purgesAt after the retention days', async () => {
    const books = await makeList();
    expect(await delete_list(ctx(), { id: books.id })).toEqual({ deleted: true, id: books.id, name: 'Books', itemsDeleted: 0 });
    const row = await list(books.id);
    expect(row.deleted_at).toBeInstanceOf(Date);
    expect(row.purges_at!.getTime() - row.deleted_at!.getTime()).toBe(7 * 86400e3);
    expect((await list_lists(ctx(), {})).lists.some((l) => l.id === books.id)).toBe(false);
    expect((await refusal(update_list(ctx(), { id: books.id, name: 'Back?' }))).code).toBe('notFound');
  });

  it.each([
    ['a live item', {}],
    ['only an archived item', { archived_at: new Date() }],
  ])('refuses a list that still holds %s unless confirmDeleteItems is true, and deletes nothing', async (_case, extra) => {
    const books = await makeList();
    await addItems(books.id, 1, extra);
    for (const confirm of [undefined, null, false]) {
      const error = await refusal(delete_list(ctx(), { id: books.id, confirmDeleteItems: confirm }));
      expect(error).toMatchObject({ code: 'toolError', status: 409 });
      expect(error.message).toMatch(/^List 'Books' still holds 1 item.*; send confirmDeleteItems: true to delete it with them/);
    }
    expect((await list(books.id)).deleted_at).toBeNull();
    expect((await items(books.id)).every((i) => i.deleted_at === null)).toBe(true);
  });

  it('with confirmDeleteItems trashes the list and every live item on it, marked as deleted with the list', async () => {
    const books = await makeList();
    const live = await addItems(books.id, 3);
    const archived = await addItems(books.id, 1, { archived_at: new Date() });
    const earlier = new Date(Date.now() - 86400e3);
    const trashedBefore = await addItems(books.id, 1, { deleted_at: earlier, purges_at: new Date(earlier.getTime() + 7 * 86400e3) });
    const other = await makeList('Films');
    const elsewhere = await addItems(other.id, 2);

    expect(await delete_list(ctx(), { id: books.id, confirmDeleteItems: true })).toEqual({ deleted: true, id: books.id, name: 'Books', itemsDeleted: 4 });
    const rows = await items(books.id);
    const listRow = await list(books.id);
    for (const id of [...live, ...archived]) {
      expect(rows.find((r) => r.id === id)).toMatchObject({ deleted_at: listRow.deleted_at, purges_at: listRow.purges_at, deleted_with_list: books.id });
    }
    // Trashed on its own before: keeps its own stamps, and a restore of the list leaves it in the trash.
    expect(rows.find((r) => r.id === trashedBefore[0])).toMatchObject({ deleted_at: earlier, deleted_with_list: null });
    expect((await items(other.id)).map((r) => [r.id, r.deleted_at])).toEqual(elsewhere.sort().map((id) => [id, null]));
  });

  it('is undone by restore_deleted, which brings back exactly the items deleted with the list', async () => {
    const books = await makeList();
    const live = await addItems(books.id, 2);
    const earlier = new Date(Date.now() - 86400e3);
    const [alone] = await addItems(books.id, 1, { deleted_at: earlier, purges_at: new Date(earlier.getTime() + 7 * 86400e3) });
    await delete_list(ctx(), { id: books.id, confirmDeleteItems: true });
    expect(await restore_deleted(ctx(), { type: 'list', id: books.id })).toMatchObject({ restored: true, restoredItems: 2 });
    const rows = await items(books.id);
    expect(
      rows
        .filter((r) => r.deleted_at === null)
        .map((r) => r.id)
        .sort(),
    ).toEqual(live.sort());
    expect(rows.find((r) => r.id === alone)).toMatchObject({ deleted_at: earlier });
  });

  it('moves the deleted items into the changes feed', async () => {
    const books = await makeList();
    const [id] = await addItems(books.id, 1);
    const before = (await server.db('items').where({ id }).first()) as { change_txid: string };
    await delete_list(ctx(), { id: books.id, confirmDeleteItems: true });
    const after = (await server.db('items').where({ id }).first()) as { change_txid: string; feed_seq: string | null };
    expect(after.change_txid).not.toBe(before.change_txid);
  });

  it.each([
    ['the Tasks list by id', async () => (await list_lists(ctx(), {})).tasksListId!, /The Tasks list is the hub’s own and cannot be deleted/],
    ['the Tasks list by word', async () => 'tasks', /The Tasks list/],
    ['Life Admin', async () => (await list_lists(ctx(), {})).lists.find((l) => l.isLifeAdmin)!.id, /Life Admin is the hub’s own list and cannot be deleted/],
  ])('refuses %s, even with confirmDeleteItems', async (_case, id, message) => {
    const listId = await id();
    const error = await refusal(delete_list(ctx(), { id: listId, confirmDeleteItems: true }));
    expect(error).toMatchObject({ code: 'toolError' });
    expect(error.message).toMatch(message);
    const lists = await list_lists(ctx(), {});
    expect(lists.tasksListId).not.toBeNull();
    expect(lists.lists.some((l) => l.isLifeAdmin)).toBe(true);
  });

  it('deletes the Notes list; addressing notes afterwards makes a fresh one', async () => {
    const carol = await server.account('Carol');
    const notes = (await list_lists(ctx(carol), {})).notesListId!;
    await addItems(notes, 2, {}, carol);
    expect(await delete_list(ctx(carol), { id: 'notes', confirmDeleteItems: true })).toEqual({ deleted: true, id: notes, name: 'Notes', itemsDeleted: 2 });
    expect((await list_lists(ctx(carol), {})).notesListId).toBeNull();
    // Deleting `notes` again does not make a list only to trash it.
    expect((await refusal(delete_list(ctx(carol), { id: 'notes' }))).code).toBe('notFound');
    expect((await list_lists(ctx(carol), {})).notesListId).toBeNull();
    const fresh = await update_list(ctx(carol), { id: 'notes', icon: '🗒️' });
    expect(fresh).toMatchObject({ name: 'Notes', role: 'notes', itemCount: 0 });
    expect(fresh.id).not.toBe(notes);
    expect((await list_lists(ctx(carol), {})).notesListId).toBe(fresh.id);
  });

  it('answers 404 for a list of another account and leaves it and its items alone', async () => {
    const bobs = await makeList('Bob’s', bob);
    await addItems(bobs.id, 1, {}, bob);
    expect(await refusal(delete_list(ctx(ada), { id: bobs.id, confirmDeleteItems: true }))).toMatchObject({ code: 'notFound', status: 404 });
    const rest = await ada.sdk.DELETE('/lists/{id}', { params: { path: { id: bobs.id } }, body: { confirmDeleteItems: true } });
    expect(rest.response.status).toBe(404);
    expect((await list(bobs.id)).deleted_at).toBeNull();
    expect((await items(bobs.id))[0]!.deleted_at).toBeNull();
  });

  it('answers 404 for an id that is not a list, and for a list already deleted', async () => {
    expect((await refusal(delete_list(ctx(), { id: '00000000-0000-4000-8000-000000000000' }))).code).toBe('notFound');
    const books = await makeList();
    await delete_list(ctx(), { id: books.id });
    expect((await refusal(delete_list(ctx(), { id: books.id }))).code).toBe('notFound');
  });

  it('works through REST (with and without a body) and MCP', async () => {
    const empty = await makeList('Empty');
    const noBody = await ada.sdk.DELETE('/lists/{id}', { params: { path: { id: empty.id } } });
    expect(noBody.response.status).toBe(200);
    expect(noBody.data).toEqual({ deleted: true, id: empty.id, name: 'Empty', itemsDeleted: 0 });

    const full = await makeList('Full');
    await addItems(full.id, 2);
    const refused = await ada.sdk.DELETE('/lists/{id}', { params: { path: { id: full.id } } });
    expect(refused.response.status).toBe(409);
    expect(refused.error).toMatchObject({ code: 'toolError', error: expect.stringMatching(/confirmDeleteItems: true/) });

    const mcp = await server.mcp(ada);
    const viaTool = await mcp.callTool({ name: 'delete_list', arguments: { id: full.id } });
    expect(viaTool.isError).toBe(true);
    expect((viaTool.content as { text: string }[])[0]!.text).toMatch(/still holds 2 items/);
    const done = await mcp.callTool({ name: 'delete_list', arguments: { id: full.id, confirmDeleteItems: true } });
    expect(done.structuredContent).toEqual({ deleted: true, id: full.id, name: 'Full', itemsDeleted: 2 });
  });
});
