import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { get_item } from '../../src/operations/get_item.js';
import { delete_items } from '../../src/operations/delete_items.js';

describe('get_item', () => {
  const { server, ada } = useTestServer();
  const ctx = () => server.context(ada);

  it('shows every field of the Item, with cells by name and links', async () => {
    const list = await create_list(ctx(), {
      name: 'Books',
      icon: '📚',
      instructions: 'One line per book',
      properties: [
        { name: 'Author', type: 'text' },
        { name: 'Shelf', type: 'select', options: ['Home'] },
      ],
    });
    const made = await create_items(ctx(), {
      listId: list.id,
      items: [{ title: 'Dune', body: '# Dune\n\nSpice.', values: { Author: 'Herbert', Shelf: 'Home' } }],
    });
    const item = await get_item(ctx(), { id: made.items[0]!.id });
    expect(item).toMatchObject({
      title: 'Dune',
      body: '# Dune\n\nSpice.',
      cells: { Author: 'Herbert', Shelf: 'Home' },
      listName: 'Books',
      listIcon: '📚',
      isSharedWithMe: false,
      recordingStatus: 'none',
      label: 'Dune',
      webUrl: `${server.baseUrl}/artifacts/${item.id}`,
      appUrl: `listkeeper://artifacts/${item.id}`,
      attachments: [],
      bodyImages: [],
    });
    expect(item.editable).toBeUndefined();
    expect(item.guidance).toMatch(/item on the list 'Books'.*standing rules: One line per book/);
    expect(item.bodyVersion).toMatch(/\S/);
  });

  it('labels an untitled item by its first value, else its list name', async () => {
    const list = await create_list(ctx(), { name: 'Contacts', properties: [{ name: 'Email', type: 'email' }] });
    const made = await create_items(ctx(), { listId: list.id, items: [{ values: { Email: 'x@example.com' } }, {}] });
    expect((await get_item(ctx(), { id: made.items[0]!.id })).label).toBe('x@example.com');
    expect((await get_item(ctx(), { id: made.items[1]!.id })).label).toBe('Contacts');
  });

  it('puts a handle in front of every block when read for editing', async () => {
    const made = await create_items(ctx(), { listId: 'notes', items: [{ title: 'n', body: '# A\n\npara\n\n- [ ] x' }] });
    const plain = await get_item(ctx(), { id: made.items[0]!.id });
    const editing = await get_item(ctx(), { id: made.items[0]!.id, forEditing: true });
    expect(editing.bodyVersion).toBe(plain.bodyVersion);
    expect(editing.body).not.toBe(plain.body);
    expect((editing.body!.match(/⟦/g) ?? []).length).toBe(3);
  });

  it('tells the task state in guidance', async () => {
    const made = await create_items(ctx(), { items: [{ title: 't', dueAt: '2020-01-01T00:00:00Z' }] });
    expect((await get_item(ctx(), { id: made.items[0]!.id })).guidance).toMatch(/to do, due 2020-01-01T00:00:00.000Z \(overdue\)/);
  });

  it("answers 404 for a trashed item, another account's item and an unknown id", async () => {
    const made = await create_items(ctx(), { items: [{ title: 'gone' }] });
    await delete_items(ctx(), { itemIds: [made.items[0]!.id] });
    expect((await ada.sdk.GET('/items/{id}', { params: { path: { id: made.items[0]!.id } } })).response.status).toBe(404);
    const other = await create_items(ctx(), { items: [{ title: 'private' }] });
    const bea = await server.account('Bea');
    const res = await bea.sdk.GET('/items/{id}', { params: { path: { id: other.items[0]!.id } } });
    expect(res.response.status).toBe(404);
    expect(JSON.stringify(res.error)).not.toContain('private');
    expect((await ada.sdk.GET('/items/{id}', { params: { path: { id: 'not-a-uuid' } } })).response.status).toBe(400);
  });

  it('is the same through REST and MCP', async () => {
    const made = await create_items(ctx(), { items: [{ title: 'same' }] });
    const id = made.items[0]!.id;
    const rest = await ada.sdk.GET('/items/{id}', { params: { path: { id } } });
    const mcp = await (await server.mcp(ada)).callTool({ name: 'get_item', arguments: { id } });
    expect(mcp.structuredContent).toEqual(rest.data);
  });
});
