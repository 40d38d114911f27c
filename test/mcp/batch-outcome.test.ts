/** Batch tools over MCP: a call where every entry failed is an isError result; a partial one says what failed first. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { useTestServer } from '../support/server.js';

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };

describe('batch outcomes over MCP', () => {
  const { server, ada } = useTestServer();
  let client: Client;
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult;
  const firstLine = (r: ToolResult) => r.content[0]!.text.split('\n')[0]!;
  beforeAll(async () => {
    client = await server.mcp(ada);
  });

  it('answers isError when every entry of create_items failed, with what to fix on the first line', async () => {
    const result = await call('create_items', {
      listId: 'tasks',
      items: [
        { title: 'a', dueAt: 'someday' },
        { title: 'b', taskStatus: 'maybe' },
      ],
    });
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toMatch(/^Nothing was written: all 2 entries failed\. Fix them and call create_items again\. entry 0: .+; entry 1: .+\.$/);
    expect((result.structuredContent!.failed as unknown[]).length).toBe(2);
  });

  it('stays a success when some entries were written, and counts what failed first', async () => {
    const result = await call('create_items', { listId: 'tasks', items: [{ title: 'good' }, { title: 'bad', dueAt: 'someday' }] });
    expect(result.isError).toBeUndefined();
    expect(firstLine(result)).toMatch(/^1 of 2 entries failed and were not written \(the rest were\)/);
    expect((result.structuredContent!.items as unknown[]).length).toBe(1);
  });

  it('leaves a clean call as it was: the JSON alone', async () => {
    const result = await call('create_items', { listId: 'tasks', items: [{ title: 'fine' }] });
    expect(result.isError).toBeUndefined();
    expect(() => JSON.parse(result.content[0]!.text)).not.toThrow();
  });

  it('answers isError when delete_items refused every id', async () => {
    const result = await call('delete_items', { itemIds: ['00000000-0000-4000-8000-000000000000'] });
    expect(result.isError).toBe(true);
    expect(firstLine(result)).toMatch(
      /^Nothing was written: the one entry failed\. Fix it and call delete_items again\. 00000000-0000-4000-8000-000000000000: not one of your live items\.$/,
    );
  });
});
