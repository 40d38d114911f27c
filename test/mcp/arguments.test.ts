/** Tolerant tool arguments: JSON strings where the tool's input schema expects objects or arrays. */
import { describe, it, expect } from '@jest/globals';
import { parseJsonStrings } from '../../src/mcp/arguments.js';
import { tools } from '../../src/generated/tools.js';

const schemaOf = (name: string) => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool.inputSchema;
};
const json = JSON.stringify;

describe('parseJsonStrings', () => {
  it.each([
    [
      'a top-level array',
      'create_items',
      { listId: 'tasks', items: json([{ title: 'Renew passport' }]) },
      { listId: 'tasks', items: [{ title: 'Renew passport' }] },
    ],
    ['an entry of an array of objects', 'create_items', { items: [json({ title: 'a' }), { title: 'b' }] }, { items: [{ title: 'a' }, { title: 'b' }] }],
    [
      'values (array-or-object) inside an entry',
      'create_items',
      { items: [{ title: 'Dune', values: json([{ property: 'Author', value: 'Herbert' }]) }] },
      { items: [{ title: 'Dune', values: [{ property: 'Author', value: 'Herbert' }] }] },
    ],
    [
      'values sent as an object string',
      'update_items',
      { items: [{ itemId: 'x', values: json({ Author: 'Herbert' }) }] },
      { items: [{ itemId: 'x', values: { Author: 'Herbert' } }] },
    ],
    [
      'strings at every level at once',
      'update_items',
      { items: json([{ itemId: 'x', edits: json([{ op: 'delete', handle: 'k3f' }]) }]) },
      { items: [{ itemId: 'x', edits: [{ op: 'delete', handle: 'k3f' }] }] },
    ],
    [
      'a nullable object (query sort) and an array of clauses',
      'query_items',
      { listId: 'tasks', sort: json({ property: 'title' }), where: json([{ property: 'status', op: 'eq', value: 'todo' }]) },
      { listId: 'tasks', sort: { property: 'title' }, where: [{ property: 'status', op: 'eq', value: 'todo' }] },
    ],
    [
      'an anyOf object-or-null (updateProperty) and nested options',
      'update_list',
      { id: 'l', updateProperty: json({ id: 'p_1', options: json(['a', 'b']) }) },
      { id: 'l', updateProperty: { id: 'p_1', options: ['a', 'b'] } },
    ],
    ['an array of ids', 'delete_items', { itemIds: json(['a', 'b']) }, { itemIds: ['a', 'b'] }],
  ])('parses %s', (_case, tool, input, expected) => {
    expect(parseJsonStrings(schemaOf(tool), input)).toEqual(expected);
  });

  it.each([
    [
      'a string where a string is also allowed (a value, a select option label)',
      'create_items',
      { items: [{ values: [{ property: 'Tags', value: '["a"]' }] }] },
    ],
    ['a string property that looks like JSON', 'create_items', { items: [{ title: '{"not": "parsed"}', body: '[x] done' }] }],
    ['a string that is not JSON', 'create_items', { items: 'Renew passport' }],
    ['JSON of the wrong kind (an object where an array is expected)', 'delete_items', { itemIds: json({ a: 1 }) }],
    ['a JSON scalar', 'create_items', { items: '42' }],
    ['an unknown argument', 'list_lists', { surprise: json({ a: 1 }) }],
    ['a select option given as a string beside objects', 'create_list', { name: 'x', properties: [{ name: 'S', type: 'select', options: ['{"label":"a"}'] }] }],
  ])('leaves %s alone', (_case, tool, input) => {
    expect(parseJsonStrings(schemaOf(tool), input)).toEqual(input);
  });
});
