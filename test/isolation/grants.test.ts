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
  const { server, account } = useTestServer({ env: { ...REACH_LOCAL_SERVERS, EMBEDDINGS: 'none' }, search: true, accounts: ['Rita', 'Nora', 'Lina', 'Lola'] });
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
    expect(subset.tools.map((t) => t.name).sort()).toEqual(
      served
        .filter((op) => op.tool && ['tasks', 'search'].includes(op.toolset!))
        .map((op) => op.operationId)
        .sort(),
    );
    const unknown = await mcp(account('Lina'), { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, '?toolsets=nope');
    expect(unknown.status).toBe(400);
  });
});
/**
 * One list: Lola's key reaches Groceries only. Every operation of the table is called, over
 * REST and MCP, with the ids of her Journal (and her Tasks, outside the grant too) wherever it
 * takes one; no answer shows the Journal's marker, and nothing outside Groceries changes.
 * `probe` must name every operation, so a new one fails here until it is given its case.
 */
describe('a one-list grant', () => {
  const MARKER = `Jn${randomUUID().slice(0, 8)}Private`;
  const { server, ada: lola } = useTestServer({ env: { ...REACH_LOCAL_SERVERS, EMBEDDINGS: 'none' }, search: true, accounts: ['Lola'] });
  let key: TestAccount;
  const ids = { groceries: '', journal: '', note: '', task: '', trashed: '', subscription: randomUUID(), automation: randomUUID(), import: randomUUID() };

  async function post(who: TestAccount, path: string, body: unknown, method = 'POST'): Promise<Record<string, unknown>> {
    const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${who.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown>;
  }

  beforeAll(async () => {
    ids.groceries = String((await post(lola, '/lists', { name: 'Groceries' })).id);
    ids.journal = String((await post(lola, '/lists', { name: `Journal ${MARKER}` })).id);
    const note = (await post(lola, '/items', {
      listId: ids.journal,
      items: [{ title: `Entry ${MARKER}`, body: `Dear ${MARKER}`, labels: [MARKER], externalId: 'journal-entry' }],
    })) as {
      items: { id: string }[];
    };
    ids.note = note.items[0]!.id;
    await post(lola, `/items/${ids.note}/messages`, { message: `Chat ${MARKER}`, agentName: 'Scribe' });
    const task = (await post(lola, '/items', { listId: 'tasks', items: [{ title: `Task ${MARKER}`, dueAt: '2026-12-02T09:00:00Z' }] })) as {
      items: { id: string }[];
    };
    ids.task = task.items[0]!.id;
    const gone = (await post(lola, '/items', { listId: ids.journal, items: [{ title: `Gone ${MARKER}` }] })) as { items: { id: string }[] };
    ids.trashed = gone.items[0]!.id;
    await post(lola, '/items', { itemIds: [ids.trashed] }, 'DELETE');
    await post(lola, '/items', { listId: ids.groceries, items: [{ title: 'Milk' }] });
    await server.pump!.drain();
    key = {
      ...lola,
      key: await createApiKey(server.db, lola.userId, { level: 'delete', lists: [ids.groceries], later: false, since: new Date().toISOString() }),
    };
  });

  /** The rows outside the grant, to show no call changed them. */
  const outside = async () =>
    JSON.stringify([
      await server.db('lists').whereNot({ id: ids.groceries }).where({ owner_id: lola.userId }).orderBy('id'),
      await server.db('items').whereNot({ list_id: ids.groceries }).where({ owner_id: lola.userId }).orderBy('id'),
    ]);

  /** Each operation's call aimed outside the grant (its input as MCP takes it). */
  const probe: Record<string, () => Record<string, unknown>> = {
    get_context: () => ({}),
    list_lists: () => ({}),
    create_list: () => ({ name: 'Sneaky' }),
    update_list: () => ({ id: ids.journal, name: 'Renamed' }),
    delete_list: () => ({ id: ids.journal, confirmDeleteItems: true }),
    list_items: () => ({ scope: 'workspace' }),
    create_items: () => ({ listId: ids.journal, items: [{ title: 'Sneaky' }] }),
    update_items: () => ({ items: [{ id: ids.note, title: 'Changed' }] }),
    delete_items: () => ({ itemIds: [ids.note, ids.task] }),
    query_items: () => ({ listId: ids.journal }),
    move_items: () => ({ itemIds: [ids.note], listId: ids.groceries }),
    get_item: () => ({ id: ids.note }),
    create_image_upload: () => ({ itemId: ids.note, mimeType: 'image/png', bytes: 10 }),
    read_chat_messages: () => ({ id: ids.note }),
    post_chat_message: () => ({ id: ids.note, message: 'Hello', agentName: 'Scribe' }),
    search: () => ({ q: MARKER }),
    list_deleted: () => ({}),
    restore_deleted: () => ({ type: 'item', id: ids.trashed }),
    list_automations: () => ({}),
    get_automation_runs: () => ({ id: ids.automation }),
    run_automation: () => ({ id: ids.automation }),
    list_event_subscriptions: () => ({}),
    create_event_subscription: () => ({ url: 'http://127.0.0.1:9/hook' }),
    delete_event_subscription: () => ({ id: ids.subscription }),
    get_calendar_feed: () => ({}),
    create_calendar_feed: () => ({}),
    revoke_calendar_feed: () => ({}),
    list_labels: () => ({}),
    export_workspace: () => ({}),
    export_list_csv: () => ({ id: ids.journal }),
    create_import: () => ({ format: 'csv', csv: 'Title\nx\n', listName: 'Imported' }),
    preview_import: () => ({ format: 'csv', csv: 'Title\nx\n', listId: ids.journal }),
    get_import: () => ({ id: ids.import }),
  };

  it('has a case for every operation', () => {
    expect(Object.keys(probe).sort()).toEqual(served.map((op) => op.operationId).sort());
  });

  /** A refusal may quote the id the call sent; no other id outside the grant shows. */
  function unsentIdsAbsent(text: string, input: Record<string, unknown>): void {
    const sent = JSON.stringify(input);
    for (const id of [ids.journal, ids.note, ids.task, ids.trashed]) if (!sent.includes(id)) expect(text).not.toContain(id);
  }

  async function restCall(op: OperationSpec, input: Record<string, unknown>): Promise<{ status: number; text: string }> {
    const names = new Set(op.params.map((p) => p.name));
    let path = op.path;
    const query = new URLSearchParams();
    const body: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(input)) {
      if (path.includes(`{${name}}`)) path = path.replace(`{${name}}`, String(value));
      else if (names.has(name)) query.set(name, String(value));
      else body[name] = value;
    }
    const hasBody = Object.keys(body).length > 0;
    const res = await fetch(`${server.baseUrl}/api/v1${path}${query.size ? `?${query}` : ''}`, {
      method: op.method,
      headers: { Authorization: `Bearer ${key.key}`, ...(hasBody ? { 'Content-Type': 'application/json' } : {}) },
      ...(hasBody ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, text: await res.text() };
  }

  it.each(served.map((op) => ({ name: op.operationId, op })))('REST $name shows and changes nothing outside the grant', async ({ op }) => {
    const before = await outside();
    const input = probe[op.operationId]!();
    const answer = await restCall(op, input);
    expect(answer.text).not.toContain(MARKER);
    unsentIdsAbsent(answer.text, input);
    expect(await outside()).toEqual(before);
    if (['create_list', 'create_import'].includes(op.operationId)) expect(answer.status).toBe(403);
  });

  it.each(served.filter((op) => op.tool).map((op) => ({ name: op.operationId, op })))(
    'MCP $name shows and changes nothing outside the grant',
    async ({ op }) => {
      const before = await outside();
      const mcp = await server.mcp(key);
      const input = probe[op.operationId]!();
      let text: string;
      try {
        text = JSON.stringify(await mcp.callTool({ name: op.operationId, arguments: input }));
      } catch (err) {
        text = String(err); // a 403 at the HTTP level (create_list)
      }
      expect(text).not.toContain(MARKER);
      unsentIdsAbsent(text, input);
      expect(await outside()).toEqual(before);
    },
  );

  it("finds no externalId of another list's item: the entry fails, and nothing of that item is shown", async () => {
    const made = await restCall(operationTable.find((o) => o.operationId === 'create_items')!, {
      listId: ids.groceries,
      items: [
        { title: 'Copy', externalId: 'journal-entry' },
        { title: 'Bread', externalId: 'groceries-bread' },
      ],
    });
    expect(made.status).toBe(201);
    expect(made.text).not.toContain(MARKER);
    expect(made.text).not.toContain(ids.note);
    const out = JSON.parse(made.text) as { items: { title: string }[]; existing: unknown[]; failed: { index: number; externalId: string }[] };
    expect(out.existing).toEqual([]);
    expect(out.failed).toEqual([expect.objectContaining({ index: 0, externalId: 'journal-entry' })]);
    expect(out.items.map((i) => i.title)).toEqual(['Bread']);
  });

  it('reads and writes the list it was given', async () => {
    const made = await restCall(operationTable.find((o) => o.operationId === 'create_items')!, { listId: ids.groceries, items: [{ title: 'Eggs' }] });
    expect(made.status).toBe(201);
    const page = await restCall(operationTable.find((o) => o.operationId === 'list_items')!, { listId: 'Groceries' });
    expect(page.text).toContain('Milk');
    const lists = JSON.parse((await restCall(operationTable.find((o) => o.operationId === 'list_lists')!, {})).text) as { lists: { id: string }[] };
    expect(lists.lists.map((l) => l.id)).toEqual([ids.groceries]);
  });
});
