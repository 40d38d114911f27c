import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_list } from '../../src/operations/create_list.js';
import { ApiError } from '../../src/core/errors.js';

describe('create_list', () => {
  const { server, ada } = useTestServer();

  it('makes a to-do list with the task columns from template tasks and ignores properties', async () => {
    const list = await create_list(server.context(ada), { name: 'Errands', template: 'tasks', properties: [{ name: 'Shop', type: 'text' }] });
    expect(list).toMatchObject({ role: 'tasks', statusPropertyId: 'status', dueDatePropertyId: 'dueDate', layout: 'list', itemCount: 0, isLifeAdmin: false });
    expect(list.properties.map((p) => p.id)).toEqual(['status', 'dueDate']);
  });

  it('gives own properties and select options stable ids, role other, layout table', async () => {
    const list = await create_list(server.context(ada), {
      name: 'Books',
      icon: '📚',
      titleLabel: 'Book',
      properties: [
        { name: 'Author', type: 'text' },
        { name: 'Genres', type: 'multiSelect', options: ['Fiction', { label: 'History', color: 'blue' }, 'fiction'] },
      ],
    });
    expect(list).toMatchObject({
      name: 'Books',
      icon: '📚',
      titleLabel: 'Book',
      role: 'other',
      layout: 'table',
      statusPropertyId: null,
      dueDatePropertyId: null,
    });
    expect(list.properties[0]!.id).toMatch(/^p_[a-z0-9]{8}$/);
    expect(list.properties[1]!.options!.map((o) => o.label)).toEqual(['Fiction', 'History']);
    expect(list.properties[1]!.options![0]!.id).toMatch(/^o_/);
  });

  it('makes a notes list when no properties are given', async () => {
    expect(await create_list(server.context(ada), { name: 'Journal' })).toMatchObject({ role: 'notes', properties: [], titleLabel: null, icon: null });
  });

  it.each([
    ['a property named like the title column', [{ name: 'Title', type: 'text' }], /duplicate the title column/],
    [
      'two properties with one name',
      [
        { name: 'A', type: 'text' },
        { name: 'a', type: 'number' },
      ],
      /duplicates a property name/,
    ],
  ])('refuses %s with a sentence naming it', async (_case, properties, message) => {
    const attempt = create_list(server.context(ada), { name: 'Bad', properties: properties as never });
    await expect(attempt).rejects.toThrow(ApiError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('answers 201 through REST and the same list through MCP', async () => {
    const rest = await ada.sdk.POST('/lists', { body: { name: 'Recipes', properties: [{ name: 'Minutes', type: 'number' }] } });
    expect(rest.response.status).toBe(201);
    const mcp = await server.mcp(ada);
    const tool = await mcp.callTool({ name: 'create_list', arguments: { name: 'Recipes 2', properties: [{ name: 'Minutes', type: 'number' }] } });
    expect((tool.structuredContent as { role: string }).role).toBe(rest.data!.role);
  });
});
