/**
 * Labels: free words on items of any list, over REST, MCP and the SDK. The catalogue counts
 * them; list_items filters by one across lists (the Tasks set, every list) and query_items
 * within a list; a label in another case takes the spelling in use; update_items replaces or
 * clears them; too many fail the entry with the limit named.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';

describe('labels', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'] });
  let booksId: string;
  beforeAll(async () => {
    booksId = (await ada.sdk.POST('/lists', { body: { name: 'Books', properties: [{ name: 'Author', type: 'text' }] } })).data!.id;
    await ada.sdk.POST('/items', {
      body: {
        listId: 'tasks',
        items: [
          { title: 'Buy stamps', labels: ['errands', 'post'] },
          { title: 'Call mum', labels: ['family'] },
        ],
      },
    });
    await ada.sdk.POST('/items', { body: { listId: 'Life Admin', items: [{ title: 'Renew passport', labels: ['Errands'] }] } });
    await ada.sdk.POST('/items', { body: { listId: booksId, items: [{ title: 'Dune', labels: ['ERRANDS', 'gift'] }, { title: 'Emma' }] } });
  });

  it('lists every label with its count, most used first, in the spelling first used', async () => {
    const got = await ada.sdk.labels.list();
    expect(got.data).toEqual({
      labels: [
        { name: 'errands', items: 3 },
        { name: 'family', items: 1 },
        { name: 'gift', items: 1 },
        { name: 'post', items: 1 },
      ],
    });
    // get_context shows the same catalogue, and each task's labels.
    const context = (await ada.sdk.GET('/context', {})).data!;
    expect(context.labels).toEqual(got.data!.labels);
    expect(context.tasks.unsorted.find((t) => t.title === 'Buy stamps')).toMatchObject({ labels: ['errands', 'post'] });
  });

  it('filters the Tasks set and every list by a label, in any case', async () => {
    const tasksSet = (await ada.sdk.GET('/items', { params: { query: { label: 'Errands' } } })).data!;
    expect(tasksSet.items.map((i) => i.title).sort()).toEqual(['Buy stamps', 'Renew passport']);
    const everywhere = (await ada.sdk.GET('/items', { params: { query: { scope: 'workspace', label: 'errands' } } })).data!;
    expect(everywhere.items.map((i) => i.title).sort()).toEqual(['Buy stamps', 'Dune', 'Renew passport']);
    expect(everywhere.items.find((i) => i.title === 'Dune')!.labels).toEqual(['errands', 'gift']);
    const inBooks = (await ada.sdk.POST('/items/query', { body: { listId: booksId, label: 'gift' } })).data!;
    expect(inBooks.items.map((i) => i.title)).toEqual(['Dune']);
    const counted = (await ada.sdk.POST('/items/query', { body: { listId: booksId, label: 'errands', mode: 'count' } })).data!;
    expect(counted.count).toBe(1);
  });

  it('replaces and clears an item’s labels, and refuses more than twenty', async () => {
    const emma = (await ada.sdk.GET('/items', { params: { query: { listId: booksId, query: 'Emma' } } })).data!.items[0]!;
    const set = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: emma.id, labels: ['Gift', ' to read ', 'gift'] }] } });
    expect(set.data!.items[0]!.labels).toEqual(['gift', 'to read']);
    const cleared = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: emma.id, labels: [] }] } });
    expect(cleared.data!.items[0]!.labels).toEqual([]);
    const many = Array.from({ length: 21 }, (_, i) => `l${i}`);
    const twenty = await ada.sdk.POST('/items', { body: { listId: booksId, items: [{ title: 'Heat', labels: many.slice(0, 20) }] } });
    expect(twenty.data!.items[0]!.labels).toHaveLength(20);
    const refused = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: emma.id, labels: many }] } });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'invalid' });
  });

  it('takes and filters labels over MCP, and keeps each person’s labels their own', async () => {
    const client = await server.mcp(ada);
    const made = await client.callTool({ name: 'create_items', arguments: { listId: 'tasks', items: [{ title: 'Pick up parcel', labels: ['post'] }] } });
    expect((made.structuredContent as { items: { labels: string[] }[] }).items[0]!.labels).toEqual(['post']);
    const listed = await client.callTool({ name: 'list_items', arguments: { label: 'post' } });
    expect((listed.structuredContent as { items: { title: string }[] }).items.map((i) => i.title).sort()).toEqual(['Buy stamps', 'Pick up parcel']);
    await client.close();
    expect((await account('Bea').sdk.labels.list()).data).toEqual({ labels: [] });
    expect((await account('Bea').sdk.GET('/items', { params: { query: { scope: 'workspace', label: 'post' } } })).data!.items).toEqual([]);
  });
});
