/**
 * Every operation of openapi.yaml has a handler file, an MCP tool (when it has an x-mcp
 * block) and a test file — or is listed below as not built yet, and then answers 501.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { tools } from '../src/generated/tools.js';
import { handlers } from '../src/operations/index.js';
import { startTestServer, type TestServer } from './support/server.js';

/** Operations not built yet; the issues of this round remove every one. */
export const NOT_YET_BUILT: string[] = [
  'update_list', 'delete_list', 'move_items',
  'search',
];

const spec = parse(readFileSync('openapi/openapi.yaml', 'utf8')) as { paths: Record<string, Record<string, { operationId: string; 'x-mcp'?: unknown }>> };
const operations = Object.entries(spec.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
    .map(([method, op]) => ({ path, method: method.toUpperCase(), operationId: op.operationId, isTool: Boolean(op['x-mcp']) })),
);

describe('operation coverage', () => {
  it('has 21 MCP tools and 3 REST-only event routes', () => {
    expect(operations.filter((o) => o.isTool)).toHaveLength(21);
    expect(operations.filter((o) => !o.isTool).map((o) => o.operationId).sort()).toEqual(['create_event_subscription', 'delete_event_subscription', 'list_event_subscriptions']);
  });

  it.each(operations)('$operationId has a tool when the spec says so', ({ operationId, isTool }) => {
    expect(tools.some((t) => t.name === operationId)).toBe(isTool);
  });

  const built = operations.filter((o) => !NOT_YET_BUILT.includes(o.operationId));
  it.each(built)('$operationId has a handler file, a registered handler and a test file', ({ operationId }) => {
    expect(existsSync(`src/operations/${operationId}.ts`)).toBe(true);
    expect(handlers).toHaveProperty(operationId);
    expect(existsSync(`test/operations/${operationId}.test.ts`)).toBe(true);
  });

  it.each(NOT_YET_BUILT)('%s is listed as not built and really has no handler', (operationId) => {
    expect(handlers).not.toHaveProperty(operationId);
  });

  describe('not-yet-built operations answer 501 notImplemented', () => {
    let server: TestServer;
    let key: string;
    beforeAll(async () => {
      server = await startTestServer();
      key = (await server.account()).key;
    });
    afterAll(async () => server.close());

    const unbuilt = operations.filter((o) => NOT_YET_BUILT.includes(o.operationId));
    it.each(unbuilt)('$method $path ($operationId)', async ({ method, path }) => {
      const url = `${server.baseUrl}/api/v1${path.replace('{id}', '00000000-0000-4000-8000-000000000000')}`;
      const res = await fetch(url, { method, headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(501);
      expect(await res.json()).toMatchObject({ code: 'notImplemented' });
    });
  });
});
