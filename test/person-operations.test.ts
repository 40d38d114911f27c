/**
 * The person's own operations (x-person-paths of openapi.yaml), beside coverage.test.ts for the
 * served ones: each has a handler file, a registered handler and a test file; none is served (no
 * REST route, no MCP tool, nothing in the served document or the SDK); and dispatch refuses
 * each to a connection, whatever it sends.
 */
import { describe, it, expect } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { tools } from '../src/generated/tools.js';
import { operationTable, personOperationTable } from '../src/generated/operations.js';
import { openapiDocument } from '../src/generated/openapi-document.js';
import { operations as sdkOperations } from '../sdk/src/generated/operations.js';
import { handlers, personHandlers } from '../src/operations/index.js';
import { invoke } from '../src/operations/dispatch.js';
import { matchRoute } from '../src/http/rest.js';
import { useTestServer } from './support/server.js';

const spec = parse(readFileSync('openapi/openapi.yaml', 'utf8')) as {
  'x-person-paths': Record<string, Record<string, { operationId: string; 'x-mcp'?: unknown; 'x-sdk'?: unknown }>>;
};
const operations = Object.entries(spec['x-person-paths']).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
    .map(([method, op]) => ({ path, method: method.toUpperCase(), operationId: op.operationId, marked: Boolean(op['x-mcp'] || op['x-sdk']) })),
);
const servedIds = Object.values(openapiDocument.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
  Object.values(item).map((op) => op.operationId),
);

describe("the person's own operations", () => {
  it('are declared, compiled into their own table, and registered apart from the served ones', () => {
    expect(operations.length).toBeGreaterThan(0);
    expect(personOperationTable.map((o) => [o.operationId, o.surface])).toEqual(operations.map((o) => [o.operationId, 'person']));
    expect(operationTable.every((o) => o.surface === 'public')).toBe(true);
    expect(Object.keys(personHandlers).sort()).toEqual(operations.map((o) => o.operationId).sort());
    for (const { operationId } of operations) expect(handlers).not.toHaveProperty(operationId);
  });

  it.each(operations)('$operationId has a handler file and a test file, and no x-mcp or x-sdk', ({ operationId, marked }) => {
    expect(existsSync(`src/operations/${operationId}.ts`)).toBe(true);
    expect(existsSync(`test/operations/${operationId}.test.ts`)).toBe(true);
    expect(marked).toBe(false);
  });

  it.each(operations)('$operationId is not served: no REST route, no tool, not in the served document or the SDK', ({ operationId, method, path }) => {
    expect(matchRoute(method, path.replace(/\{[^}]+\}/g, '5e8c7d6e-8d79-4fb1-ae8c-6f5e6d1b0e54'))).toBeNull();
    expect(tools.some((t) => t.name === operationId)).toBe(false);
    expect(servedIds).not.toContain(operationId);
    expect(sdkOperations.some((o: { operationId: string }) => o.operationId === operationId)).toBe(false);
  });

  it('leave nothing of theirs in the served document: no person path, tag or component', () => {
    const served = JSON.stringify(openapiDocument);
    expect(served).not.toContain('x-person-paths');
    expect(served).not.toContain('/person/');
    expect((openapiDocument.tags as { name: string }[]).map((t) => t.name)).not.toContain('person');
    expect(Object.keys((openapiDocument.components as { schemas: object }).schemas)).not.toContain('Memory');
  });

  describe('on a server', () => {
    const { server, ada } = useTestServer();

    it('answer 404 over REST and are no tool over MCP', async () => {
      const rest = await fetch(`${server.baseUrl}/api/v1/person/memory`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ada.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'Planted by an agent' }),
      });
      expect(rest.status).toBe(404);
      const mcp = await server.mcp(ada);
      const result = (await mcp.callTool({ name: 'add_memory', arguments: { text: 'Planted by an agent' } })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(/Unknown tool 'add_memory'/);
      expect(await server.db('memory').where({ user_id: ada.userId }).count({ n: '*' })).toEqual([{ n: 0 }]);
    });

    it.each(operations)('dispatch refuses $operationId to an API key and an OAuth app', async ({ operationId }) => {
      for (const via of ['apiKey', 'oauth'] as const) {
        const ctx = { ...server.context(ada), principal: { ...ada.principal, via } };
        await expect(invoke(ctx, operationId, { params: { id: '5e8c7d6e-8d79-4fb1-ae8c-6f5e6d1b0e54' }, body: { text: 'x' } })).rejects.toMatchObject({
          status: 404,
          message: `There is no operation ${operationId}; the OpenAPI document at /api/v1/openapi.json lists every one.`,
        });
      }
    });
  });
});
