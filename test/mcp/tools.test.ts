/** The MCP adapter: tools from the spec, results with structured content, errors as results. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { useTestServer } from '../support/server.js';

describe('MCP adapter', () => {
  const { server, ada } = useTestServer();
  let mcp: Client;
  beforeAll(async () => {
    mcp = await server.mcp(ada);
  });

  it('lists 22 tools, each with a title, its hints and an object output schema', async () => {
    const { tools } = await mcp.listTools();
    expect(tools).toHaveLength(22);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      // destructiveHint and idempotentHint mean something only beside readOnlyHint false (the MCP schema says so).
      expect(tool.annotations).toEqual(
        tool.annotations?.readOnlyHint
          ? { readOnlyHint: true, openWorldHint: expect.any(Boolean) }
          : { readOnlyHint: false, destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean), openWorldHint: expect.any(Boolean) },
      );
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.inputSchema.type).toBe('object');
    }
  });

  // service.md, Endpoints, Conventions: which operations read, which add, which change or remove.
  const READ = [
    'get_context',
    'list_lists',
    'list_items',
    'query_items',
    'get_item',
    'read_chat_messages',
    'search',
    'list_deleted',
    'list_automations',
    'get_automation_runs',
  ];
  const ADD = ['create_list', 'create_items', 'create_image_upload', 'restore_deleted'];
  const CHANGE = ['update_list', 'delete_list', 'update_items', 'delete_items', 'move_items', 'post_chat_message', 'run_automation', 'create_import'];

  it("marks the spec's read-only operations read-only and its changing ones destructive", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ, ...ADD, ...CHANGE].sort());
    for (const tool of tools) {
      const expected = READ.includes(tool.name)
        ? { readOnlyHint: true }
        : ADD.includes(tool.name)
          ? { readOnlyHint: false, destructiveHint: false }
          : { readOnlyHint: false, destructiveHint: true };
      // The title is the tool's own (`title`); annotations do not repeat it.
      expect({ tool: tool.name, ...tool.annotations }).toMatchObject({ tool: tool.name, ...expected });
      expect(tool.title).toEqual(expect.any(String));
    }
  });

  it('gives create_list the same result shape as REST POST /lists', async () => {
    const input = { name: 'Books', icon: '📚', titleLabel: 'Book', properties: [{ name: 'Author', type: 'text' as const }] };
    const viaMcp = await mcp.callTool({ name: 'create_list', arguments: input });
    expect(viaMcp.isError).toBeFalsy();
    const structured = viaMcp.structuredContent as Record<string, unknown>;
    expect(JSON.parse((viaMcp.content as { text: string }[])[0]!.text)).toEqual(structured);
    const viaRest = await ada.sdk.POST('/lists', { body: input });
    expect(viaRest.response.status).toBe(201);
    const strip = (list: Record<string, unknown>) => ({ ...list, id: 'x', properties: (list.properties as { id: string }[]).map((p) => ({ ...p, id: 'p' })) });
    expect(strip(structured)).toEqual(strip(viaRest.data as unknown as Record<string, unknown>));
  });

  it('returns a refusal as an isError result that names the field', async () => {
    const result = await mcp.callTool({ name: 'create_list', arguments: { icon: '📚' } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/'name' is required.*invalid/);
  });

  it('accepts object and array arguments sent as JSON strings', async () => {
    const result = await mcp.callTool({ name: 'create_list', arguments: { name: 'Films', properties: JSON.stringify([{ name: 'Year', type: 'number' }]) } });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { properties: { name: string }[] }).properties.map((p) => p.name)).toEqual(['Year']);
  });

  it('accepts JSON strings nested where the schema expects an object or array', async () => {
    const properties = [JSON.stringify({ name: 'Genre', type: 'select', options: JSON.stringify(['Sci-fi', 'Crime']) }), { name: 'Pages', type: 'number' }];
    const result = await mcp.callTool({ name: 'create_list', arguments: { name: 'Shelf', properties } });
    expect(result.isError).toBeFalsy();
    const created = result.structuredContent as { properties: { name: string; options?: { label: string }[] }[] };
    expect(created.properties.map((p) => [p.name, p.options?.map((o) => o.label)])).toEqual([
      ['Genre', ['Sci-fi', 'Crime']],
      ['Pages', undefined],
    ]);
  });

  it('names the field when a string is not the JSON the schema expects', async () => {
    const result = await mcp.callTool({ name: 'create_list', arguments: { name: 'Shelf', properties: 'Genre, Pages' } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^'properties' must be array or null; received 'Genre, Pages'.*\(code: invalid\)/);
  });
});
