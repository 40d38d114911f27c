/**
 * The grant matrix: every operation of the generated table × {read only, no deletes, one list},
 * over REST and MCP. A call beyond the grant answers 403 `insufficientScope` with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` naming what to ask for (MCP
 * at the HTTP level, so a client can step up) and changes nothing; a call within it is never
 * refused for the grant. A new operation is in the matrix as soon as it is in openapi.yaml
 * (its x-grant says what it needs). One server, one account per grant (a person holds one key).
 * @see docs/auth.md "Grants"
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { operationTable } from '../../src/generated/operations.js';
import { tools } from '../../src/generated/tools.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import type { Grant } from '../../src/core/context.js';
import type { GrantLevel, OperationSpec } from '../../src/core/operation-spec.js';
import { useTestServer, type TestAccount } from '../support/server.js';
import { snapshotOf } from '../support/snapshot.js';
import { REACH_LOCAL_SERVERS } from '../support/net.js';

const ORDER: GrantLevel[] = ['read', 'write', 'delete'];
const served = operationTable.filter((op) => op.surface === 'public');

interface Answer {
  status: number;
  code: string | null;
  challenge: string | null;
  text: string;
}

/** A call with placeholder input: what the grant decides comes before any reading of it. */
function restRequest(op: OperationSpec): { url: string; init: RequestInit } {
  const path = op.path.replace(/\{[^}]+\}/g, randomUUID());
  return { url: `/api/v1${path}`, init: { method: op.method, ...(op.bodySchema ? { body: '{}', headers: { 'Content-Type': 'application/json' } } : {}) } };
}

describe('the grant matrix', () => {
  const { server, account } = useTestServer({ env: { ...REACH_LOCAL_SERVERS, EMBEDDINGS: 'none' }, accounts: ['Rita', 'Nora', 'Lina'] });
  const grants: Record<'read only' | 'no deletes', { name: string; grant: Grant }> = {
    'read only': { name: 'Rita', grant: { level: 'read', lists: null, later: false, since: new Date().toISOString() } },
    'no deletes': { name: 'Nora', grant: { level: 'write', lists: null, later: false, since: new Date().toISOString() } },
  };
  const keys: Record<string, TestAccount> = {};

  beforeAll(async () => {
    for (const [label, { name, grant }] of Object.entries(grants)) {
      const who = account(name);
      keys[label] = { ...who, key: await createApiKey(server.db, who.userId, grant) };
    }
  });

  async function rest(who: TestAccount, op: OperationSpec): Promise<Answer> {
    const { url, init } = restRequest(op);
    const res = await fetch(`${server.baseUrl}${url}`, { ...init, headers: { ...(init.headers as object), Authorization: `Bearer ${who.key}` } });
    const text = await res.text();
    const code = res.headers.get('content-type')?.startsWith('application/json') ? ((JSON.parse(text) as { code?: string }).code ?? null) : null;
    return { status: res.status, code, challenge: res.headers.get('www-authenticate'), text };
  }

  async function mcp(who: TestAccount, body: unknown, query = ''): Promise<{ status: number; challenge: string | null; json: Record<string, unknown> }> {
    const res = await fetch(`${server.baseUrl}/mcp${query}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${who.key}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-06-18',
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, challenge: res.headers.get('www-authenticate'), json: (await res.json()) as Record<string, unknown> };
  }

  const cases = Object.keys(grants).flatMap((label) => served.map((op) => ({ name: `${label}: ${op.operationId} (${op.grant})`, label, op })));

  it.each(cases)('REST $name', async ({ label, op }) => {
    const who = keys[label]!;
    const held = grants[label as keyof typeof grants].grant.level;
    const before = await snapshotOf(server, who.userId);
    const answer = await rest(who, op);
    if (ORDER.indexOf(op.grant!) > ORDER.indexOf(held)) {
      expect({ status: answer.status, code: answer.code }).toEqual({ status: 403, code: 'insufficientScope' });
      expect(answer.challenge).toMatch(new RegExp(`^Bearer resource_metadata="[^"]+", error="insufficient_scope", scope="lists:${op.grant}"$`));
      expect(await snapshotOf(server, who.userId)).toEqual(before);
    } else {
      expect(answer.status).not.toBe(403);
    }
  });

  it.each(cases.filter(({ op }) => op.tool))('MCP $name', async ({ label, op }) => {
    const who = keys[label]!;
    const held = grants[label as keyof typeof grants].grant.level;
    const before = await snapshotOf(server, who.userId);
    const answer = await mcp(who, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: op.operationId, arguments: {} } });
    if (ORDER.indexOf(op.grant!) > ORDER.indexOf(held)) {
      expect(answer.status).toBe(403);
      expect(answer.json.code).toBe('insufficientScope');
      expect(answer.challenge).toContain(`error="insufficient_scope", scope="lists:${op.grant}"`);
      expect(await snapshotOf(server, who.userId)).toEqual(before);
    } else {
      expect(answer.status).toBe(200);
    }
  });

  it('lets a read-only key read and a no-deletes key write', async () => {
    const read = await fetch(`${server.baseUrl}/api/v1/items?listId=tasks`, { headers: { Authorization: `Bearer ${keys['read only']!.key}` } });
    expect(read.status).toBe(200);
    const made = await fetch(`${server.baseUrl}/api/v1/items`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${keys['no deletes']!.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ listId: 'tasks', items: [{ title: 'Milk' }] }),
    });
    expect(made.status).toBe(201);
  });

  it('lists to a read-only connection only the read tools, at under half the tokens of the whole list', async () => {
    const list = async (who: TestAccount, query = '') =>
      (await mcp(who, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, query)).json.result as { tools: { name: string }[] };
    const readOnly = await list(keys['read only']!);
    const noDeletes = await list(keys['no deletes']!);
    const whole = await list(account('Lina'));
    const readTools = served.filter((op) => op.tool && op.grant === 'read').map((op) => op.operationId);
    expect(readOnly.tools.map((t) => t.name).sort()).toEqual(readTools.sort());
    expect(noDeletes.tools.map((t) => t.name)).not.toContain('delete_items');
    expect(whole.tools.map((t) => t.name)).toEqual(tools.map((t) => t.name));
    const encoder = new Tiktoken(o200k);
    const share = encoder.encode(JSON.stringify(readOnly)).length / encoder.encode(JSON.stringify(whole)).length;
    expect(share).toBeLessThan(0.5);
    // A toolset subset: the tools of `tasks` and `search` only, within the grant.
    const subset = await list(account('Lina'), '?toolsets=tasks,search');
    expect(subset.tools.map((t) => t.name).sort()).toEqual(served.filter((op) => op.tool && ['tasks', 'search'].includes(op.toolset!)).map((op) => op.operationId).sort());
    const unknown = await mcp(account('Lina'), { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, '?toolsets=nope');
    expect(unknown.status).toBe(400);
  });
});
