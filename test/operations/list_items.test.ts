import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { list_items } from '../../src/operations/list_items.js';
import { update_items } from '../../src/operations/update_items.js';

describe('list_items', () => {
  const { server, ada } = useTestServer({});
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    const ctx = server.context(ada);
    const made = await create_items(ctx, {
      items: [
        { title: 'late', dueAt: '2026-11-01T10:00:00Z' },
        { title: 'soon', dueAt: '2026-11-25T10:00:00Z' },
        { title: 'undated' },
        { title: 'doing', taskStatus: 'inProgress', dueAt: '2026-12-10T10:00:00Z' },
        { title: 'done', taskStatus: 'completed' },
      ],
    });
    for (const item of made.items) ids[item.title!] = item.id;
    await create_items(ctx, { items: [{ title: 'Pay water bill', body: 'Account 42 at the water company' }] });
    const books = await create_list(ctx, { name: 'Books', properties: [{ name: 'Author', type: 'text' }] });
    await create_items(ctx, { listId: books.id, items: [{ title: 'Dune' }] });
    ids.books = books.id;
  });
  const titles = (r: { items: { title: string | null }[] }) => r.items.map((i) => i.title);

  it('gives the Tasks set by due date then creation, completed left out', async () => {
    const result = await list_items(server.context(ada), {});
    expect(result.listId).toBeNull();
    expect(titles(result)).toEqual(['late', 'soon', 'doing', 'undated', 'Pay water bill']);
  });

  it.each([
    ['taskStatus', { taskStatus: ['completed'] as ('todo' | 'inProgress' | 'completed')[] }, ['done']],
    ['taskStatus, two of them', { taskStatus: ['inProgress', 'completed'] as ('todo' | 'inProgress' | 'completed')[] }, ['doing', 'done']],
    ['dueAfter inclusive', { dueAfter: '2026-11-25T10:00:00Z' }, ['soon', 'doing']],
    ['dueBefore exclusive', { dueBefore: '2026-11-25T10:00:00Z' }, ['late']],
    ['completedAfter implies completed', { completedAfter: '2000-01-01T00:00:00Z' }, ['done']],
    ['query over title and body', { query: 'water 42' }, ['Pay water bill']],
    ['limit', { limit: 2 }, ['late', 'soon']],
  ])('filters by %s', async (_name, filter, expected) => {
    const result = await list_items(server.context(ada), filter);
    expect(titles(result)).toEqual(expected);
  });

  it('sorts by created newest first', async () => {
    const result = await list_items(server.context(ada), { sort: 'created', limit: 2 });
    expect(titles(result)).toEqual(['Pay water bill', 'doing']);
  });

  it('reads one list with its properties, and leaves archived items out', async () => {
    const result = await list_items(server.context(ada), { listId: ids.books! });
    expect(result).toMatchObject({ listName: 'Books', count: 1 });
    expect(result.properties?.map((p) => p.name)).toEqual(['Author']);
    await update_items(server.context(ada), { items: [{ itemId: ids.late! }], archived: true });
    expect(titles(await list_items(server.context(ada), {}))).not.toContain('late');
  });

  it('takes comma-separated arrays over REST', async () => {
    const res = await fetch(`${server.baseUrl}/api/v1/items?taskStatus=inProgress,completed`, { headers: { Authorization: `Bearer ${ada.key}` } });
    expect(res.status).toBe(200);
    expect(titles((await res.json()) as { items: { title: string }[] })).toEqual(['doing', 'done']);
    const sdk = await ada.sdk.GET('/items', { params: { query: { taskStatus: ['completed'] } } });
    expect(titles(sdk.data!)).toEqual(['done']);
  });

  it('refuses query beside changedSince, and limit outside 1 to 200', async () => {
    const both = await ada.sdk.GET('/items', { params: { query: { query: 'x', changedSince: '2026-01-01T00:00:00Z' } } });
    expect(both.response.status).toBe(409);
    expect(both.error).toMatchObject({ code: 'toolError', field: 'query' });
    expect(both.error?.error).toMatch(/query cannot be combined with changedSince/);
    expect((await ada.sdk.GET('/items', { params: { query: { limit: 201 } } })).response.status).toBe(400);
    expect((await ada.sdk.GET('/items', { params: { query: { limit: 0 } } })).response.status).toBe(400);
  });

  it("answers 404 for another account's list", async () => {
    const bea = await server.account('Bea');
    expect((await bea.sdk.GET('/items', { params: { query: { listId: ids.books! } } })).response.status).toBe(404);
  });
});
