/** MCP beyond tools: lists as resources (and a template), prompts for a task service, completions of list and property names. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { useTestServer } from '../support/server.js';
import { create_list } from '../../src/operations/create_list.js';
import { create_items } from '../../src/operations/create_items.js';

describe('MCP resources, prompts and completions', () => {
  const { server } = useTestServer({
    accounts: [],
    beforeClose: async () => {
      await client.close();
    },
  });
  let client: Client;
  let booksId: string;
  beforeAll(async () => {
    const ada = await server.account('Ada');
    booksId = (
      await create_list(server.context(ada), {
        name: 'Books',
        properties: [
          { name: 'Shelf', type: 'select', options: ['To read', 'Read'] },
          { name: 'Score', type: 'number' },
        ],
      })
    ).id;
    await create_items(server.context(ada), { listId: booksId, items: [{ title: 'Dune' }] });
    client = await server.mcp(ada);
  });

  it('announces the capabilities', () => {
    const caps = client.getServerCapabilities();
    expect(caps?.resources).toBeDefined();
    expect(caps?.prompts).toBeDefined();
    expect(caps?.completions).toBeDefined();
  });

  it('lists every list as a resource', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name)).toEqual(['Tasks', 'Notes', 'Life Admin', 'Books']);
    expect(resources.find((r) => r.name === 'Books')?.uri).toBe(`listkeeper://lists/${booksId}`);
  });

  it('reads a list resource as list_items answers, by id and by name', async () => {
    for (const uri of [`listkeeper://lists/${booksId}`, 'listkeeper://lists/Books']) {
      const { contents } = await client.readResource({ uri });
      const body = JSON.parse((contents[0] as { text: string }).text) as { listName: string; items: { title: string }[] };
      expect(body.listName).toBe('Books');
      expect(body.items.map((i) => i.title)).toEqual(['Dune']);
    }
  });

  it('refuses an unknown list as a protocol error naming it', async () => {
    await expect(client.readResource({ uri: 'listkeeper://lists/Recipes' })).rejects.toThrow(/No list 'Recipes'/);
  });

  it('offers the list template', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['listkeeper://lists/{listId}']);
  });

  it('has prompts for a task service, which name the tools to use', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['plan_my_day', 'weekly_review', 'triage_inbox', 'summarize_by']);
    const got = await client.getPrompt({ name: 'triage_inbox', arguments: { list: 'Books' } });
    const text = (got.messages[0]!.content as { text: string }).text;
    expect(text).toContain('Triage the list "Books"');
    expect(text).toContain('move_items');
    await expect(client.getPrompt({ name: 'triage_inbox', arguments: {} })).rejects.toThrow(/needs 'list'/);
  });

  it('completes list names for the template and for prompts', async () => {
    const forTemplate = await client.complete({ ref: { type: 'ref/resource', uri: 'listkeeper://lists/{listId}' }, argument: { name: 'listId', value: 'bo' } });
    expect(forTemplate.completion.values).toEqual(['Books']);
    const forPrompt = await client.complete({ ref: { type: 'ref/prompt', name: 'weekly_review' }, argument: { name: 'list', value: 'l' } });
    expect(forPrompt.completion.values).toEqual(['Life Admin']);
  });

  it('completes property names of the list the prompt names', async () => {
    const result = await client.complete({
      ref: { type: 'ref/prompt', name: 'summarize_by' },
      argument: { name: 'property', value: 's' },
      context: { arguments: { list: 'Books' } },
    });
    expect(result.completion.values).toEqual(['Shelf', 'Score']);
  });
});
