/**
 * Cross-account isolation. Ada keeps a workspace whose every name, title, body, value and
 * option carries a marker string; Eve, another account, calls every operation of the
 * generated operation table, over REST and over MCP, once with her own ids (the control,
 * which proves the call is well formed) and once per id-bearing input with Ada's id in it.
 * The foreign calls answer as the spec says — 404 `notFound`, or the id under `refused` — and
 * no response ever shows the marker or Ada's ids, and Ada's rows are unchanged after every call.
 * A new operation is covered as soon as it is in openapi.yaml; a new kind of id fails loudly
 * until `kindOf` below knows what it is.
 * @see docs/conventions.md: an id belonging to someone else answers 404
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { operationTable } from '../../src/generated/operations.js';
import { openapiDocument } from '../../src/generated/openapi-document.js';
import { createAutomation } from '../../src/domain/automations/automations.js';
import { startTestJobs, waitFor } from '../support/jobs.js';
import type { Jobs } from '../../src/jobs/queue.js';
import type { OperationSpec, JsonSchema } from '../../src/core/operation-spec.js';
import { useTestServer, type TestServer, type TestAccount } from '../support/server.js';
import { snapshotOf } from '../support/snapshot.js';
import { REACH_LOCAL_SERVERS } from '../support/net.js';

const MARKER = `Zq${randomUUID().slice(0, 8)}AdaPrivate`;

type Kind = 'item' | 'list' | 'externalId' | 'automation' | 'subscription' | 'import';
/** Where the id goes: a parameter (path or query), a body field, or a field of the first entry of a body array. */
interface IdField {
  name: string;
  in: 'param' | 'body' | 'entry';
  array: boolean;
  entryOf?: string;
  kinds: Kind[];
}
interface Ids {
  /** A task on the Tasks list. */
  item: string;
  /** For Ada the marked Books list; for Eve her Tasks list (so examples written for tasks succeed). */
  list: string;
  externalId: string;
  /** The item made with `externalId`. */
  externalItem: string;
  automation: string;
  subscription: string;
  /** An import (of a one-row CSV into a list of its own). */
  import: string;
  deletedItem: string;
  deletedList: string;
}

const ID_NAME = /^(id|ids)$|[a-z](Id|Ids)$/;
// Property ids (`sumPropertyId`) name a column of a list, not something an account owns; the
// list itself is reached through its own id, which is covered.
const NOT_ACCOUNT_IDS = /PropertyIds?$/;

/** What a field named `name` of `op` holds; throws for a kind of id this test does not know yet. */
function kindOf(op: OperationSpec, name: string): Kind[] {
  if (/^externalId$/.test(name)) return ['externalId'];
  if (/item/i.test(name)) return ['item'];
  if (/list/i.test(name)) return ['list'];
  const segment = op.path.split('/')[1];
  if (segment === 'items') return ['item'];
  if (segment === 'lists') return ['list'];
  if (segment === 'automations') return ['automation'];
  if (segment === 'event-subscriptions') return ['subscription'];
  if (segment === 'trash') return ['item', 'list'];
  if (segment === 'imports') return ['import'];
  throw new Error(`isolation test: teach kindOf what '${name}' of ${op.operationId} (${op.method} ${op.path}) is`);
}

/** Every id-bearing input of an operation, from its generated JSON Schemas. */
function idFields(op: OperationSpec): IdField[] {
  const fields: IdField[] = [];
  const isId = (name: string) => ID_NAME.test(name) && !NOT_ACCOUNT_IDS.test(name);
  const isArray = (schema: JsonSchema) => schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
  for (const [name, schema] of Object.entries((op.paramsSchema.properties ?? {}) as Record<string, JsonSchema>)) {
    if (isId(name)) fields.push({ name, in: 'param', array: isArray(schema), kinds: kindOf(op, name) });
  }
  for (const [name, schema] of Object.entries((op.bodySchema?.properties ?? {}) as Record<string, JsonSchema>)) {
    if (isId(name)) fields.push({ name, in: 'body', array: isArray(schema), kinds: kindOf(op, name) });
    const entry = isArray(schema) ? (schema.items as JsonSchema | undefined) : undefined;
    for (const [inner, innerSchema] of Object.entries((entry?.properties ?? {}) as Record<string, JsonSchema>)) {
      if (isId(inner)) fields.push({ name: inner, in: 'entry', entryOf: name, array: isArray(innerSchema), kinds: kindOf(op, inner) });
    }
  }
  return fields;
}

/** The request example of the spec (a well-formed body), or {}; required strings without one get a placeholder. */
function baseInput(op: OperationSpec): { params: Record<string, unknown>; body: Record<string, unknown> | undefined } {
  const doc = openapiDocument as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>> };
  const example = doc.paths[op.path]?.[op.method.toLowerCase()]?.requestBody?.content['application/json']?.example;
  const params: Record<string, unknown> = {};
  // A required text parameter (search's `q`) asks for the other account's marker: it must find nothing of theirs.
  for (const p of op.params) if (p.required && p.in === 'query') params[p.name] = MARKER;
  const body = op.bodySchema ? (structuredClone(example ?? {}) as Record<string, unknown>) : undefined;
  return { params, body };
}

interface Case {
  label: string;
  field: IdField | null;
  kind: Kind | null;
}

/** One control case, then one case per id-bearing input (and per kind, for `restore_deleted`'s `id`). */
function casesOf(op: OperationSpec): Case[] {
  return [
    { label: 'own ids', field: null, kind: null },
    ...idFields(op).flatMap((field) =>
      field.kinds.map((kind) => ({ label: `${field.entryOf ? `${field.entryOf}[0].` : ''}${field.name} (${kind})`, field, kind })),
    ),
  ];
}

/** The input of a case: every id-bearing field the example uses (and the one under test) gets Eve's id, the field under test Ada's. */
function buildInput(
  op: OperationSpec,
  c: Case,
  own: Ids,
  foreign: Ids,
): { params: Record<string, unknown>; body: Record<string, unknown> | undefined; foreignId: string | null } {
  const { params, body } = baseInput(op);
  const kindValue = (ids: Ids, kind: Kind, field: IdField) => {
    if (op.operationId === 'restore_deleted' && field.name === 'id') return kind === 'item' ? ids.deletedItem : ids.deletedList;
    return ids[kind];
  };
  const set = (field: IdField, kind: Kind, ids: Ids) => {
    const value = kindValue(ids, kind, field);
    const v = field.array ? [value] : value;
    if (field.in === 'param') params[field.name] = v;
    else if (field.in === 'body') body![field.name] = v;
    else {
      const entries = (body![field.entryOf!] as Record<string, unknown>[] | undefined) ?? [{}];
      entries[0] = { ...entries[0], [field.name]: v };
      body![field.entryOf!] = entries.slice(0, 1);
    }
    return value;
  };
  for (const field of idFields(op)) {
    const present =
      field.in === 'param'
        ? field.name in params || op.params.some((p) => p.name === field.name && p.in === 'path')
        : field.in === 'body'
          ? field.name in (body ?? {})
          : field.entryOf! in (body ?? {}) && field.name in ((body![field.entryOf!] as Record<string, unknown>[])[0] ?? {});
    if (present && field !== c.field) set(field, field.kinds[0]!, own);
  }
  if (op.operationId === 'restore_deleted') body!.type = c.kind === 'list' ? 'list' : 'item';
  const foreignId = c.field ? set(c.field, c.kind!, foreign) : null;
  return { params, body, foreignId };
}

/** What the spec promises for another person's id in this field. */
function promise(op: OperationSpec, field: IdField): 'notFound' | 'refused' | 'filtered' | 'ownNamespace' | 'failedEntry' {
  if (field.name === 'externalId') return 'ownNamespace'; // the caller's own id for its items: never matches another account's
  if (field.name === 'parentId' && op.operationId === 'create_items') return 'failedEntry'; // a batch: the entry fails alone, under `failed`
  if (field.name === 'ids' && field.in === 'param') return 'filtered'; // list_items: only these ids, other filters still apply
  if (field.name === 'itemIds' && 'refused' in ((op.outputSchema.properties ?? {}) as object)) return 'refused';
  return 'notFound';
}

interface Answer {
  status: number;
  code: string | null;
  body: unknown;
  text: string;
}

function url(base: string, op: OperationSpec, params: Record<string, unknown>): string {
  let path = op.path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (path.includes(`{${name}}`)) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    else query.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  const qs = query.toString();
  return `${base}/api/v1${path}${qs ? `?${qs}` : ''}`;
}

async function callRest(
  server: TestServer,
  who: TestAccount,
  op: OperationSpec,
  input: { params: Record<string, unknown>; body: Record<string, unknown> | undefined },
): Promise<Answer> {
  const res = await fetch(url(server.baseUrl, op, input.params), {
    method: op.method,
    headers: { Authorization: `Bearer ${who.key}`, ...(input.body ? { 'Content-Type': 'application/json' } : {}) },
    ...(input.body ? { body: JSON.stringify(input.body) } : {}),
  });
  const text = await res.text();
  // A text answer (export_list_csv) is kept as text: the checks below read `text`.
  const body = text && res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as unknown) : text || null;
  return { status: res.status, code: res.ok ? null : ((body as { code?: string } | null)?.code ?? null), body, text };
}

async function callMcp(mcp: Client, op: OperationSpec, input: { params: Record<string, unknown>; body: Record<string, unknown> | undefined }): Promise<Answer> {
  const result = await mcp.callTool({ name: op.operationId, arguments: { ...input.params, ...(input.body ?? {}) } });
  const text = JSON.stringify(result);
  // A batch call whose every entry was refused is an isError result that still carries its answer.
  if (result.isError && result.structuredContent) return { status: 200, code: null, body: result.structuredContent, text };
  if (result.isError) {
    const message = (result.content as { text: string }[])[0]?.text ?? '';
    const code = /\(code: (\w+)\)/.exec(message)?.[1] ?? null;
    return { status: 0, code, body: null, text };
  }
  return { status: 200, code: null, body: result.structuredContent, text };
}

describe('cross-account isolation', () => {
  // Webhook callbacks go to a closed loopback port: no lookup of a public name, no traffic off the machine.
  // Search is fed by the outbox (keyword search, no model to load), so search can be asked for Ada's words.
  const { server, ada, account } = useTestServer({
    env: { ...REACH_LOCAL_SERVERS, EMBEDDINGS: 'none' },
    search: true,
    accounts: ['Ada', 'Eve'],
    beforeClose: async () => jobs?.stop(),
  });
  const eve = account('Eve');
  let adaIds: Ids;
  let adaMcp: Client;
  let eveMcp: Client;
  let snapshot: () => Promise<string>;
  let jobs: Jobs | undefined;

  beforeAll(async () => {
    jobs = await startTestJobs(server); // run_automation queues its run
    adaMcp = await server.mcp(ada);
    eveMcp = await server.mcp(eve);
    adaIds = await seed(ada, MARKER);
    await server.pump!.drain(); // Ada's items are in the search index
    snapshot = () => snapshotOf(server, ada.userId);
  });

  /** An import of a one-row CSV into a new list, waited for until it has ended. */
  async function importOne(who: TestAccount, marker: string): Promise<string> {
    const imported = await fetch(`${server.baseUrl}/api/v1/imports`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${who.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ format: 'csv', csv: `Title\nImported ${marker}\n`, listName: `Imported ${randomUUID()}` }),
    });
    expect(imported.status).toBe(202);
    const id = ((await imported.json()) as { id: string }).id;
    await waitFor(async () => ((await server.db('imports').where({ id }).first()).finished_at ? true : undefined));
    return id;
  }

  /** A workspace for `who`; with a marker, every text of it carries the marker. */
  async function seed(who: TestAccount, marker: string, withSubscription = true, withImport = true): Promise<Ids> {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${who.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; items: { id: string }[] };
    };
    const list = await post('/lists', {
      name: `Books ${marker}`,
      instructions: `Keep ${marker} private`,
      titleLabel: `Book ${marker}`,
      properties: [
        { name: `Author ${marker}`, type: 'text' },
        { name: 'Shelf', type: 'select', options: [`Shelf ${marker}`] },
      ],
    });
    // The caller's own id for an item: Eve sends Ada's (in the test below), so it holds no marker.
    const externalId = `ext-${randomUUID()}`;
    const onList = await post('/items', {
      listId: list.id,
      items: [{ title: `Title ${marker}`, body: `Body ${marker}`, externalId, values: { [`Author ${marker}`]: `Writer ${marker}`, Shelf: `Shelf ${marker}` } }],
    });
    const task = (await post('/items', {
      listId: 'tasks',
      items: [{ title: `Task ${marker}`, body: `Task body ${marker}`, dueAt: '2026-12-01T09:00:00Z' }],
    })) as unknown as { listId: string; items: { id: string }[] };
    const gone = await post('/items', { listId: 'tasks', items: [{ title: `Deleted ${marker}`, body: `Deleted body ${marker}` }] });
    const del = await fetch(`${server.baseUrl}/api/v1/items`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${who.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ itemIds: [gone.items[0]!.id] }),
    });
    expect(del.status).toBe(200);
    const trashed = await post('/lists', { name: `Old ${marker}` });
    await post('/items', { listId: trashed.id, items: [{ title: `Old item ${marker}` }] });
    // Trashed the way delete_list does (it is not built in every version): the items remember the list.
    const now = new Date();
    const purges = new Date(now.getTime() + 30 * 86400000);
    await server
      .db('items')
      .where({ list_id: trashed.id })
      .whereNull('deleted_at')
      .update({ deleted_at: now, purges_at: purges, deleted_with_list: trashed.id });
    await server.db('lists').where({ id: trashed.id }).update({ deleted_at: now, purges_at: purges });
    // A person holds at most 25 subscriptions: Eve makes one only for the calls that take one.
    const subscription = withSubscription ? (await post('/event-subscriptions', { url: 'http://127.0.0.1:9/listkeeper' })).id : randomUUID();
    // Automations have no create operation: made the way the CLI makes them.
    const automation = (
      await createAutomation(
        server.db,
        who.userId,
        {
          name: `Weekly ${marker}`.trim(),
          description: `Adds ${marker}`,
          schedule: '0 9 * * 1',
          actions: [{ type: 'createItems', items: [{ title: `Auto ${marker}` }] }],
        },
        new Date(),
      )
    ).id;
    // An import, ended before the cases run (a job still writing would change the workspace under them); Eve makes one only for the calls that take one.
    const importId = withImport ? await importOne(who, marker) : randomUUID();
    return {
      item: task.items[0]!.id,
      list: marker ? list.id : task.listId,
      externalId,
      externalItem: onList.items[0]!.id,
      automation,
      subscription,
      import: importId,
      deletedItem: gone.items[0]!.id,
      deletedList: trashed.id,
    };
  }

  it('seeds a workspace that Ada herself reads back with the marker (so its absence below means something)', async () => {
    const res = await callRest(server, ada, operationTable.find((o) => o.operationId === 'get_item')!, { params: { id: adaIds.item }, body: undefined });
    expect(res.text).toContain(MARKER);
    const viaMcp = await callMcp(adaMcp, operationTable.find((o) => o.operationId === 'list_lists')!, { params: {}, body: undefined });
    expect(viaMcp.text).toContain(MARKER);
    const found = await callRest(server, ada, operationTable.find((o) => o.operationId === 'search')!, { params: { q: MARKER }, body: undefined });
    expect(found.text).toContain(adaIds.item);
  });

  it('knows what every id-bearing input of every operation is', () => {
    const withIds = operationTable.filter((op) => idFields(op).length > 0).map((op) => op.operationId);
    expect(withIds).toEqual(
      expect.arrayContaining(['get_item', 'update_items', 'delete_items', 'list_items', 'create_items', 'query_items', 'restore_deleted']),
    );
  });

  const cases = operationTable.flatMap((op) => casesOf(op).map((c) => ({ name: `${op.operationId}: ${c.label}`, op, c })));

  describe.each(['REST', 'MCP'] as const)('over %s', (via) => {
    it.each(cases.filter(({ op }) => via === 'REST' || op.tool !== null))('$name', async ({ op, c }) => {
      const own = await seed(eve, '', op.path.startsWith('/event-subscriptions'), op.path.startsWith('/imports/'));
      const before = await snapshot();
      const call = (input: ReturnType<typeof buildInput>) => (via === 'REST' ? callRest(server, eve, op, input) : callMcp(eveMcp, op, input));
      const input = buildInput(op, c, own, adaIds);
      const answer = await call(input);

      // No response shows Ada's data, and nothing of hers changed.
      expect(answer.text).not.toContain(MARKER);
      expect(await snapshot()).toEqual(before);
      if (!c.field) {
        // The control: Eve's own ids make a well-formed call that succeeds or is refused on its merits (409).
        const outcome = { status: answer.status, code: answer.code };
        expect([
          { status: via === 'REST' ? op.successStatus : 200, code: null },
          { status: via === 'REST' ? 409 : 0, code: 'toolError' },
        ]).toContainEqual(outcome);
        return;
      }
      const expected = promise(op, c.field);
      const withoutRefused = JSON.stringify({ ...(answer.body as object), refused: undefined });
      switch (expected) {
        case 'notFound':
          expect({ status: answer.status, code: answer.code }).toEqual({ status: via === 'REST' ? 404 : 0, code: 'notFound' });
          break;
        case 'refused':
          expect(answer.code).toBeNull();
          expect((answer.body as { refused: string[] }).refused).toEqual([input.foreignId]);
          expect(withoutRefused).not.toContain(input.foreignId!);
          break;
        case 'failedEntry':
          expect(answer.code).toBeNull();
          expect((answer.body as { failed: { reason: string }[] }).failed[0]!.reason).toContain('no live item');
          break;
        case 'filtered':
        case 'ownNamespace':
          expect(answer.code).toBeNull();
          expect(answer.text).not.toContain(c.kind === 'externalId' ? adaIds.externalItem : input.foreignId!);
          break;
      }
      // An error may quote the id Eve sent; no other id of Ada's shows anywhere.
      for (const id of [adaIds.item, adaIds.list, adaIds.externalItem, adaIds.deletedItem, adaIds.deletedList].filter((id) => id !== input.foreignId)) {
        expect(answer.text).not.toContain(id);
      }
    });
  });
});
