/**
 * Every operation of openapi.yaml has a handler file, a registered handler, an MCP tool (when
 * it has an x-mcp block) and a test file.
 */
import { describe, it, expect } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { tools } from '../src/generated/tools.js';
import { handlers } from '../src/operations/index.js';

const spec = parse(readFileSync('openapi/openapi.yaml', 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string; 'x-mcp'?: unknown; responses: Record<string, unknown> }>>;
};
const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
    .map(([method, op]) => ({
      path,
      method: method.toUpperCase(),
      operationId: op.operationId,
      isTool: Boolean(op['x-mcp']),
      statuses: Object.keys(op.responses),
    })),
);

describe('operation coverage', () => {
  it('has 22 MCP tools and 11 REST-only routes (event subscriptions, the calendar feed, export, the import preview and state, the label catalogue)', () => {
    expect(operations.filter((o) => o.isTool)).toHaveLength(22);
    expect(
      operations
        .filter((o) => !o.isTool)
        .map((o) => o.operationId)
        .sort(),
    ).toEqual([
      'create_calendar_feed',
      'create_event_subscription',
      'delete_event_subscription',
      'export_list_csv',
      'export_workspace',
      'get_calendar_feed',
      'get_import',
      'list_event_subscriptions',
      'list_labels',
      'preview_import',
      'revoke_calendar_feed',
    ]);
  });

  it.each(operations)('$operationId has a tool when the spec says so', ({ operationId, isTool }) => {
    expect(tools.some((t) => t.name === operationId)).toBe(isTool);
  });

  it.each(operations)('$operationId has a handler file, a registered handler and a test file', ({ operationId }) => {
    expect(existsSync(`src/operations/${operationId}.ts`)).toBe(true);
    expect(handlers).toHaveProperty(operationId);
    expect(existsSync(`test/operations/${operationId}.test.ts`)).toBe(true);
  });

  it('registers no handler for an operation openapi.yaml does not have', () => {
    expect(Object.keys(handlers).sort()).toEqual(operations.map((o) => o.operationId).sort());
  });

  it.each(operations)('$operationId declares no 5xx response: every operation is built', ({ statuses }) => {
    expect(statuses.filter((s) => s.startsWith('5'))).toEqual([]);
  });
});
