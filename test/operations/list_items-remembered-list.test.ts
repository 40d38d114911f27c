/**
 * list_items and query_items on one list remember the list they read and check it by its row
 * version in their own statement (domain/lists/lists.ts withCurrentList). These tests change the
 * list behind the operations' back, with plain SQL, as another server process would: the next
 * answer must come from the list as it is, never as this process remembers it.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { list_items } from '../../src/operations/list_items.js';
import { query_items } from '../../src/operations/query_items.js';

describe('list_items on a remembered list', () => {
  const { server, ada } = useTestServer({});
  let books: string;
  let chores: string;
  let empty: string;
  beforeAll(async () => {
    const ctx = server.context(ada);
    books = (await create_list(ctx, { name: 'Books', properties: [{ name: 'Author', type: 'text' }] })).id;
    await create_items(ctx, { listId: books, items: [{ title: 'Dune' }, { title: 'Emma' }] });
    chores = (await create_list(ctx, { name: 'Chores', template: 'tasks' })).id;
    await create_items(ctx, { listId: chores, items: [{ title: 'sweep' }, { title: 'dust', taskStatus: 'completed' }] });
    empty = (await create_list(ctx, { name: 'Empty' })).id;
  });

  /** The statements an operation runs, by their SQL. */
  async function statementsOf<T>(run: () => Promise<T>): Promise<{ result: T; sql: string[] }> {
    const sql: string[] = [];
    const listen = (q: { sql: string }) => sql.push(q.sql);
    server.db.on('query', listen);
    try {
      return { result: await run(), sql };
    } finally {
      server.db.removeListener('query', listen);
    }
  }

  it('reads a page of a list it has read before in one statement', async () => {
    const first = await statementsOf(() => list_items(server.context(ada), { listId: books }));
    const second = await statementsOf(() => list_items(server.context(ada), { listId: books }));
    expect(second.result).toEqual(first.result);
    expect(first.sql.length).toBe(2);
    expect(second.sql).toHaveLength(1);
    expect(second.sql[0]).toContain('list_version');
  });

  it("shows another process's rename and new property on the next page", async () => {
    await list_items(server.context(ada), { listId: books });
    await server.db.raw(`UPDATE lists SET name = 'Novels', properties = properties || '[{"id":"p_year","name":"Year","type":"number"}]'::jsonb WHERE id = ?`, [
      books,
    ]);
    const after = await list_items(server.context(ada), { listId: books });
    expect(after.listName).toBe('Novels');
    expect(after.properties?.map((p) => p.name)).toEqual(['Author', 'Year']);
    expect(after.items.map((i) => i.title).sort()).toEqual(['Dune', 'Emma']);
  });

  it('filters the page for the list as it is: a status taken away shows the completed item', async () => {
    const before = await list_items(server.context(ada), { listId: chores });
    expect(before.items.map((i) => i.title)).toEqual(['sweep']);
    await server.db.raw(`UPDATE lists SET properties = '[]'::jsonb WHERE id = ?`, [chores]);
    const after = await list_items(server.context(ada), { listId: chores });
    expect(after.items.map((i) => i.title).sort()).toEqual(['dust', 'sweep']);
    expect(after.items.every((i) => i.taskStatus === null)).toBe(true);
  });

  it('shows the change on an empty page too', async () => {
    await list_items(server.context(ada), { listId: empty });
    await server.db.raw(`UPDATE lists SET name = 'Still empty' WHERE id = ?`, [empty]);
    const after = await statementsOf(() => list_items(server.context(ada), { listId: empty }));
    expect(after.result).toMatchObject({ listName: 'Still empty', count: 0 });
    // The page, then the list (the empty page carried no version), then the page again for the list as it is.
    expect(after.sql).toHaveLength(3);
    const unchanged = await statementsOf(() => list_items(server.context(ada), { listId: empty }));
    expect(unchanged.result.listName).toBe('Still empty');
    expect(unchanged.sql).toHaveLength(2);
  });

  it('answers 404 once another process has put the list in the trash', async () => {
    await list_items(server.context(ada), { listId: books });
    await server.db.raw('UPDATE lists SET deleted_at = now() WHERE id = ?', [books]);
    await expect(list_items(server.context(ada), { listId: books })).rejects.toMatchObject({ code: 'notFound' });
    await server.db.raw('UPDATE lists SET deleted_at = NULL WHERE id = ?', [books]);
  });

  it('remembers the list asked as tasks, and sees it renamed', async () => {
    await create_items(server.context(ada), { items: [{ title: 'call the plumber' }] });
    await list_items(server.context(ada), { listId: 'tasks' });
    const again = await statementsOf(() => list_items(server.context(ada), { listId: 'Tasks ' }));
    expect(again.sql).toHaveLength(1);
    await server.db.raw(`UPDATE lists SET name = 'To do' WHERE owner_id = ? AND system_role = 'tasks'`, [ada.userId]);
    expect((await list_items(server.context(ada), { listId: 'tasks' })).listName).toBe('To do');
  });

  it('does not remember a list asked by name: another list can take the name', async () => {
    await list_items(server.context(ada), { listId: 'Chores' });
    const again = await statementsOf(() => list_items(server.context(ada), { listId: 'Chores' }));
    expect(again.sql).toHaveLength(2);
  });

  it('answers query_items from a remembered list in one statement, and sees a property another process added', async () => {
    const ctx = server.context(ada);
    const shelf = (await create_list(ctx, { name: 'Shelf', properties: [{ name: 'Kind', type: 'select', options: ['Paper', 'Ebook'] }] })).id;
    await create_items(ctx, {
      listId: shelf,
      items: [
        { title: 'Kindle book', values: { Kind: 'Ebook' } },
        { title: 'Hardback', values: { Kind: 'Paper' } },
      ],
    });
    const where = [{ property: 'Kind', op: 'eq' as const, value: 'Ebook' }];
    await query_items(ctx, { listId: shelf, mode: 'count', where });
    for (const mode of ['count', 'list'] as const) {
      const again = await statementsOf(() => query_items(ctx, { listId: shelf, mode, where }));
      expect(again.result.count).toBe(1);
      expect(again.sql).toHaveLength(1);
    }
    // Another process adds a property and renames the list: a clause on the new property is answered, not refused.
    await server.db.raw(
      `UPDATE lists SET name = 'Bookshelf', properties = properties || '[{"id":"p_pages","name":"Pages","type":"number"}]'::jsonb WHERE id = ?`,
      [shelf],
    );
    await server.db.raw(`UPDATE items SET "values" = "values" || '{"p_pages": 300}'::jsonb WHERE list_id = ? AND title = 'Hardback'`, [shelf]);
    const pages = await query_items(ctx, { listId: shelf, where: [{ property: 'Pages', op: 'gt', value: 100 }] });
    expect([pages.listName, pages.items.map((i) => i.title)]).toEqual(['Bookshelf', ['Hardback']]);
    const sum = await query_items(ctx, { listId: shelf, mode: 'sum', sumPropertyId: 'Pages' });
    expect(sum.sum).toBe(300);
    // A change the query itself would not stumble on is seen by the version check alone.
    await server.db.raw(`UPDATE lists SET name = 'Reading' WHERE id = ?`, [shelf]);
    expect((await query_items(ctx, { listId: shelf, mode: 'count', where })).listName).toBe('Reading');
    // An unknown property is still refused, in the words of the list as it is.
    await expect(query_items(ctx, { listId: shelf, where: [{ property: 'Colour', op: 'eq', value: 'red' }] })).rejects.toThrow(
      /Unknown property 'Colour'.*Pages/,
    );
  });

  it("does not serve another account's list from memory", async () => {
    await list_items(server.context(ada), { listId: books });
    const eve = await server.account('eve');
    await expect(list_items(server.context(eve), { listId: books })).rejects.toMatchObject({ code: 'notFound' });
  });
});
