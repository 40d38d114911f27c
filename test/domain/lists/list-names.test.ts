/** Lists addressed by name wherever a list id is taken, over REST and MCP alike. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { useTestServer } from '../../support/server.js';
import { create_list } from '../../../src/operations/create_list.js';

describe('a list by its name', () => {
  const { server, ada } = useTestServer({
    beforeClose: async () => {
      await client.close();
    },
  });
  let client: Client;
  let booksId: string;
  beforeAll(async () => {
    booksId = (await create_list(server.context(ada), { name: 'Books' })).id;
    await create_list(server.context(ada), { name: 'Ideas' });
    await create_list(server.context(ada), { name: 'ideas' });
    client = await server.mcp(ada);
  });

  it('adds items to the list named, without case, over REST', async () => {
    const { data, error } = await ada.sdk.POST('/items', { body: { listId: 'books', items: [{ title: 'Dune' }] } });
    expect(error).toBeUndefined();
    expect(data?.listId).toBe(booksId);
  });

  it('reads the list named over MCP', async () => {
    const result = (await client.callTool({ name: 'list_items', arguments: { listId: 'BOOKS' } })) as unknown as {
      isError?: boolean;
      structuredContent: { listId: string };
    };
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.listId).toBe(booksId);
  });

  it('refuses a name several lists share with 409, naming them', async () => {
    const { error, response } = await ada.sdk.GET('/items', { params: { query: { listId: 'Ideas' } } });
    expect(response.status).toBe(409);
    expect(error?.error).toMatch(/^2 lists are named 'Ideas': 'Ideas' \([0-9a-f-]{36}\), 'ideas' \([0-9a-f-]{36}\); pass the id of the one you mean\.$/);
  });

  it('refuses a name no list has with 404, naming the lists there are', async () => {
    const { error, response } = await ada.sdk.GET('/items', { params: { query: { listId: 'Recipes' } } });
    expect(response.status).toBe(404);
    expect(error?.error).toContain("No list 'Recipes' in your workspace");
    expect(error?.error).toContain("'Books' (");
  });

  it("never finds another account's list by its name", async () => {
    const bea = await server.account('Bea');
    const { response } = await bea.sdk.GET('/items', { params: { query: { listId: 'Books' } } });
    expect(response.status).toBe(404);
  });
});
