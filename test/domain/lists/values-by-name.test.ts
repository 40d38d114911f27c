/** The `valuesBy: name` reading: values keyed by property name with option labels, over REST and MCP alike. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { useTestServer } from '../../support/server.js';
import { create_list } from '../../../src/operations/create_list.js';
import { create_items } from '../../../src/operations/create_items.js';

describe('values by name', () => {
  const { server, ada } = useTestServer();
  let client: Client;
  let listId: string;
  let itemId: string;
  const expected = { Author: 'Frank Herbert', Shelf: 'Read', Tags: ['SF', 'Classic'], Pages: 412 };
  beforeAll(async () => {
    listId = (
      await create_list(server.context(ada), {
        name: 'Books',
        properties: [
          { name: 'Author', type: 'text' },
          { name: 'Shelf', type: 'select', options: ['To read', 'Read'] },
          { name: 'Tags', type: 'multiSelect', options: ['SF', 'Classic'] },
          { name: 'Pages', type: 'number' },
        ],
      })
    ).id;
    itemId = (await create_items(server.context(ada), { listId, items: [{ title: 'Dune', values: expected }] })).items[0]!.id;
    client = await server.mcp(ada);
  });

  it('keeps values by id and option id unless asked', async () => {
    const { data } = await ada.sdk.GET('/items', { params: { query: { listId } } });
    expect(Object.keys(data!.items[0]!.values).every((k) => !['Author', 'Shelf', 'Tags', 'Pages'].includes(k))).toBe(true);
  });

  it('list_items over REST', async () => {
    const { data } = await ada.sdk.GET('/items', { params: { query: { listId, valuesBy: 'name' } } });
    expect(data!.items[0]!.values).toEqual(expected);
  });

  it('get_item over REST', async () => {
    const { data } = await ada.sdk.GET('/items/{id}', { params: { path: { id: itemId }, query: { valuesBy: 'name' } } });
    expect(data!.values).toEqual(expected);
  });

  it('query_items over MCP', async () => {
    const result = (await client.callTool({ name: 'query_items', arguments: { listId, valuesBy: 'name' } })) as unknown as {
      structuredContent: { items: { values: Record<string, unknown> }[] };
    };
    expect(result.structuredContent.items[0]!.values).toEqual(expected);
  });
});
