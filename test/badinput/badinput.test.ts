/**
 * Bad input. Every refused call answers 4xx with `{error, code}` (a code of the spec's table)
 * and leaves the account's rows exactly as they were; text that is merely unusual — right-to-
 * left marks, emoji, SQL, Markdown and HTML — is stored and returned verbatim and never runs.
 * The limits are read from the generated operation table, so a limit added to openapi.yaml is
 * tested without a new line here.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { operationTable } from '../../src/generated/operations.js';
import { openapiDocument } from '../../src/generated/openapi-document.js';
import type { JsonSchema, OperationSpec } from '../../src/core/operation-spec.js';
import { useTestServer } from '../support/server.js';
import { snapshotOf } from '../support/snapshot.js';

const ERROR_CODES = ['invalid', 'unauthorized', 'notFound', 'methodNotAllowed', 'rateLimited', 'toolError'];

interface Sent {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
}
interface Answer {
  status: number;
  json: Record<string, unknown> | null;
  contentType: string | null;
}

describe('bad input', () => {
  const { server, ada } = useTestServer();
  let mcp: Client;
  let ids: { item: string; list: string; tasks: string };

  beforeAll(async () => {
    mcp = await server.mcp(ada);
    const list = await send({ method: 'POST', path: '/lists', body: JSON.stringify({ name: 'Books', properties: [{ name: 'Author', type: 'text' }] }) });
    const items = await send({ method: 'POST', path: '/items', body: JSON.stringify({ items: [{ title: 'Existing', body: 'Kept as it is.' }] }) });
    ids = { list: String(list.json!.id), item: String((items.json!.items as { id: string }[])[0]!.id), tasks: String(items.json!.listId) };
  });

  async function send(req: Sent): Promise<Answer> {
    const res = await fetch(`${server.baseUrl}/api/v1${req.path}`, {
      method: req.method,
      headers: { Authorization: `Bearer ${ada.key}`, ...(req.body !== undefined ? { 'Content-Type': req.contentType ?? 'application/json' } : {}) },
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
    const text = await res.text();
    let json: Record<string, unknown> | null = null;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = null;
    }
    return { status: res.status, json, contentType: res.headers.get('content-type') };
  }

  /** Sends a call that must be refused: 4xx, `{error, code}`, and not one row of Ada's changed. */
  async function refused(req: Sent, expected: { status?: number; code?: string; field?: string; message?: RegExp } = {}): Promise<Answer> {
    const before = await snapshotOf(server, ada.userId);
    const answer = await send(req);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.json).toEqual(expect.objectContaining({ error: expect.any(String), code: expect.any(String) }));
    expect(ERROR_CODES).toContain(answer.json!.code);
    expect(String(answer.json!.error).length).toBeLessThan(600);
    if (expected.status) expect(answer.status).toBe(expected.status);
    if (expected.code) expect(answer.json!.code).toBe(expected.code);
    if (expected.field) expect(answer.json!.field).toBe(expected.field);
    if (expected.message) expect(answer.json!.error).toMatch(expected.message);
    expect(await snapshotOf(server, ada.userId)).toEqual(before);
    return answer;
  }

  describe('malformed requests', () => {
    it.each([
      ['malformed JSON', '{"name": "Books",', 'application/json', /not valid JSON/],
      ['JSON that stops mid-string', '{"name": "Bo', 'application/json', /not valid JSON/],
      ['a JSON array instead of an object', '[{"name": "Books"}]', 'application/json', /'body' must be object/],
      ['a JSON string', '"Books"', 'application/json', /'body' must be object/],
      ['a JSON number', '42', 'application/json', /'body' must be object/],
      ['JSON sent as text/plain', '{"name": "Books"}', 'text/plain', /Content-Type 'text\/plain' is not accepted/],
      ['a form body', 'name=Books', 'application/x-www-form-urlencoded', /is not accepted/],
      ['XML', '<list><name>Books</name></list>', 'application/xml', /is not accepted/],
    ])('refuses %s with 400 invalid', async (_case, body, contentType, message) => {
      await refused({ method: 'POST', path: '/lists', body, contentType }, { status: 400, code: 'invalid', message });
    });

    it('refuses an empty body where one is required', async () => {
      await refused({ method: 'POST', path: '/lists', body: '' }, { status: 400, code: 'invalid', message: /needs a JSON body/ });
      await refused({ method: 'POST', path: '/lists', body: 'null' }, { status: 400, code: 'invalid', message: /needs a JSON body/ });
    });

    it('refuses a JSON null where the body is optional, and any body where there is none', async () => {
      await refused(
        { method: 'DELETE', path: `/lists/${ids.list}`, body: 'null' },
        { status: 400, code: 'invalid', message: /'body' must be object; received null/ },
      );
      await refused({ method: 'DELETE', path: `/lists/${ids.list}`, body: '[]' }, { status: 400, code: 'invalid', message: /'body' must be object/ });
      for (const body of ['null', '42', '"run"', '[1]']) {
        await refused(
          { method: 'POST', path: `/automations/${randomUUID()}/run`, body },
          { status: 400, code: 'invalid', message: /run_automation takes no body; received/ },
        );
      }
      await refused({ method: 'POST', path: `/automations/${randomUUID()}/run`, body: '{"force": true}' }, { status: 400, code: 'invalid', field: 'force' });
    });

    it('refuses a body over the limit (BODY_LIMIT_BYTES) before reading it whole', async () => {
      const big = JSON.stringify({ items: [{ title: 'x', body: 'y'.repeat(server.config.bodyLimitBytes) }] });
      await refused({ method: 'POST', path: '/items', body: big }, { status: 400, code: 'invalid', message: /the limit is \d+ bytes/ });
    });

    it('refuses a head over 64 KiB with 400 invalid', async () => {
      const answer = await refused(
        { method: 'GET', path: `/items?ids=${Array.from({ length: 2000 }, () => randomUUID()).join(',')}` },
        { status: 400, code: 'invalid' },
      );
      expect(answer.json!.error).toMatch(/exceed 65536 bytes/);
    });

    it('refuses unknown fields naming them and what is valid', async () => {
      await refused(
        { method: 'POST', path: '/lists', body: JSON.stringify({ name: 'Books', colour: 'red' }) },
        { status: 400, code: 'invalid', field: 'colour', message: /'colour' is not a known field; valid: name, icon/ },
      );
      await refused({ method: 'GET', path: '/lists?colour=red' }, { status: 400, code: 'invalid', field: 'colour' });
    });

    it('refuses a wrong JSON type anywhere in the body, naming where', async () => {
      await refused(
        { method: 'POST', path: '/items', body: JSON.stringify({ items: [{ title: 'fine' }, { title: 7 }] }) },
        { status: 400, code: 'invalid', field: 'items[1].title' },
      );
      await refused(
        { method: 'PATCH', path: '/items', body: JSON.stringify({ items: [{ itemId: ids.item }], archived: 'yes' }) },
        { status: 400, code: 'invalid', field: 'archived' },
      );
    });
  });

  describe('invalid ids', () => {
    it.each([
      ['GET /items/{id}', { method: 'GET', path: '/items/not-a-uuid' }, 'id'],
      ['GET /items/{id} with SQL', { method: 'GET', path: `/items/${encodeURIComponent("1' OR '1'='1")}` }, 'id'],
      ['PATCH /items itemId', { method: 'PATCH', path: '/items', body: JSON.stringify({ items: [{ itemId: 'x', title: 'y' }] }) }, 'items[0].itemId'],
      ['POST /trash/restore id', { method: 'POST', path: '/trash/restore', body: JSON.stringify({ type: 'item', id: '12345' }) }, 'id'],
      ['GET /items ids', { method: 'GET', path: '/items?ids=abc' }, 'ids[0]'],
    ])('%s: 400 naming the field', async (_case, req, field) => {
      await refused(req as Sent, { status: 400, code: 'invalid', field });
    });

    it.each([
      ['a malformed list id', 'not-a-uuid'],
      ['an unknown list word', 'inbox'],
      ['a well-formed id of no list', randomUUID()],
    ])('answers 404 for %s as a listId', async (_case, listId) => {
      await refused({ method: 'GET', path: `/items?listId=${encodeURIComponent(listId)}` }, { status: 404, code: 'notFound' });
      await refused({ method: 'POST', path: '/items', body: JSON.stringify({ listId, items: [{ title: 'x' }] }) }, { status: 404, code: 'notFound' });
      await refused({ method: 'POST', path: '/items/query', body: JSON.stringify({ listId }) }, { status: 404, code: 'notFound' });
    });

    it('lists malformed ids under refused in DELETE /items and deletes nothing', async () => {
      const before = await snapshotOf(server, ada.userId);
      const answer = await send({ method: 'DELETE', path: '/items', body: JSON.stringify({ itemIds: ['not-a-uuid', "'; DELETE FROM items; --"] }) });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ deleted: 0, refused: ['not-a-uuid', "'; DELETE FROM items; --"] });
      expect(await snapshotOf(server, ada.userId)).toEqual(before);
    });
  });

  describe('invalid dates', () => {
    it.each([
      ['a 30th of February', '2026-02-30T10:00:00Z'],
      ['a 13th month', '2026-13-01T00:00:00Z'],
      ['hour 24', '2026-01-01T24:00:00Z'],
      ['words', 'yesterday'],
      ['a bare number', '1735689600'],
      ['an offset of 24 hours', '2026-01-01T10:00:00+24:00'],
    ])('refuses %s as a time filter with 400 naming it', async (_case, value) => {
      await refused({ method: 'GET', path: `/items?dueAfter=${encodeURIComponent(value)}` }, { status: 400, code: 'invalid', field: 'dueAfter' });
      await refused(
        { method: 'POST', path: '/items/query', body: JSON.stringify({ listId: 'tasks', createdBefore: value }) },
        { status: 400, code: 'invalid', field: 'createdBefore' },
      );
      await refused(
        { method: 'PATCH', path: '/items', body: JSON.stringify({ items: [{ itemId: ids.item }], dueAt: value }) },
        { status: 400, code: 'invalid', field: 'dueAt' },
      );
      await refused({ method: 'GET', path: `/items?changedSince=${encodeURIComponent(value)}` }, { status: 400, code: 'invalid', field: 'changedSince' });
    });

    it("reads every instant the format admits, offsets past Postgres' ±15:59 and leap seconds included", async () => {
      for (const value of [
        '2026-01-01T10:00:00+23:59',
        '2026-01-01t10:00:00z',
        '2016-12-31T23:59:60Z',
        '0000-01-01T00:00:00+23:59',
        '9999-12-31T23:59:59-23:59',
      ]) {
        const answer = await send({ method: 'GET', path: `/items?createdAfter=${encodeURIComponent(value)}&changedSince=${encodeURIComponent(value)}` });
        expect({ value, status: answer.status }).toEqual({ value, status: 200 });
      }
    });

    it('reports an unreadable dueAt of one entry under failed and still creates the rest', async () => {
      const answer = await send({
        method: 'POST',
        path: '/items',
        body: JSON.stringify({
          items: [
            { title: 'bad date', dueAt: '2026-02-30' },
            { title: 'good date', dueAt: '2026-03-01' },
          ],
        }),
      });
      expect(answer.status).toBe(201);
      expect(answer.json).toMatchObject({ added: 1, failed: [{ index: 0, reason: expect.stringMatching(/dueAt/) }] });
      expect((answer.json!.items as { title: string }[]).map((i) => i.title)).toEqual(['good date']);
    });
  });

  describe('unicode', () => {
    it.each([
      ['a NUL character in a list name', 'POST', '/lists', { name: 'Bo\u0000oks' }, 'name', /NUL character \(U\+0000\)/],
      ['a NUL character in an item body', 'POST', '/items', { items: [{ title: 'ok', body: 'a\u0000b' }] }, 'items[0].body', /NUL/],
      [
        'a NUL character in a value key',
        'POST',
        '/items',
        { listId: 'LIST', items: [{ title: 'ok', values: { 'Aut\u0000hor': 'x' } }] },
        'items[0].values.Aut\u0000hor',
        /NUL/,
      ],
      [
        'a lone high surrogate in a title',
        'PATCH',
        '/items',
        { items: [{ itemId: 'ITEM', title: 'broken \ud83d' }] },
        'items[0].title',
        /unpaired UTF-16 surrogate \(U\+D83D\)/,
      ],
      [
        'a lone low surrogate in a query',
        'POST',
        '/items/query',
        { listId: 'tasks', where: [{ property: 'title', op: 'contains', value: '\ude00' }] },
        'where[0].value',
        /unpaired/,
      ],
    ])('refuses %s with 400 naming the field', async (_case, method, path, body, field, message) => {
      const text = JSON.stringify(body).replace('LIST', ids.list).replace('ITEM', ids.item);
      await refused({ method, path, body: text }, { status: 400, code: 'invalid', field, message });
    });

    it('refuses a NUL character in a query parameter', async () => {
      await refused({ method: 'GET', path: '/items?query=a%00b' }, { status: 400, code: 'invalid', field: 'query' });
    });

    it('refuses a NUL character over MCP too, as an isError result', async () => {
      const before = await snapshotOf(server, ada.userId);
      const result = await mcp.callTool({ name: 'create_list', arguments: { name: 'x\u0000y' } });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toMatch(/'name' contains a NUL character.*\(code: invalid\)/);
      expect(await snapshotOf(server, ada.userId)).toEqual(before);
    });

    const texts = [
      ['right-to-left marks and an override', 'Invoice \u200Fשלום\u200E \u202Egnp.exe\u202C'],
      ['emoji, with skin tones and zero-width joiners', '📚 Books 👩🏽‍💻 👨‍👩‍👧‍👦 🏳️‍🌈'],
      ['combining marks and a byte-order mark', 'Cafe\u0301 \uFEFFZ\u0335\u0321a\u0336lgo'],
      ['astral plane and private use characters', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 \uE000 \u{10FFFD}'],
      ['control characters other than NUL', 'tab\tnewline\nbell\u0007escape\u001b[31m'],
    ];
    it.each(texts)('stores %s verbatim in names, titles, bodies and values, REST and MCP', async (_case, text) => {
      const list = await send({
        method: 'POST',
        path: '/lists',
        body: JSON.stringify({ name: text, titleLabel: text, properties: [{ name: `P ${text}`, type: 'select', options: [text] }] }),
      });
      expect(list.status).toBe(201);
      expect(list.json).toMatchObject({ name: text, titleLabel: text, properties: [{ name: `P ${text}`, options: [{ label: text }] }] });
      const created = await send({
        method: 'POST',
        path: '/items',
        body: JSON.stringify({ listId: list.json!.id, items: [{ title: text, body: text, values: { [`P ${text}`]: text } }] }),
      });
      expect(created.status).toBe(201);
      const id = (created.json!.items as { id: string }[])[0]!.id;
      const read = await send({ method: 'GET', path: `/items/${id}` });
      expect(read.json).toMatchObject({ title: text, body: text, cells: { [`P ${text}`]: text }, listName: text });
      const viaMcp = await mcp.callTool({ name: 'get_item', arguments: { id } });
      expect(viaMcp.structuredContent).toMatchObject({ title: text, body: text });
    });
  });

  describe('injection', () => {
    const payloads = [
      ['SQL that ends the statement', "Robert'); DROP TABLE items; --"],
      ['SQL that widens a filter', "' OR '1'='1"],
      ['SQL with a comment and a union', "x' UNION SELECT id, email FROM users --"],
      ['a LIKE wildcard', '100%_done\\'],
      ['an HTML script', '<script>alert("x")</script>'],
      ['an HTML image with an event handler', '<img src=x onerror="alert(1)">'],
      ['a Markdown javascript: link', '[click](javascript:alert(1)) ![x](data:text/html,<b>x</b>)'],
      ['Markdown that could end a block', '```\n---\n# heading\n> quote\n- [ ] task\n```'],
      ['a JSON-looking string', '{"$ne": null, "__proto__": {"admin": true}}'],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text a client sends, not a template of ours
      ['a template placeholder', '${process.env.DATABASE_URL} {{7*7}} <%= 7*7 %>'],
    ];

    it.each(payloads)('stores %s verbatim and runs none of it', async (_case, text) => {
      const itemsBefore = Number(((await server.db('items').count('* as n')) as { n: string }[])[0]!.n);
      const list = await send({
        method: 'POST',
        path: '/lists',
        body: JSON.stringify({ name: text, instructions: text, properties: [{ name: 'Note', type: 'text' }] }),
      });
      expect(list.status).toBe(201);
      const created = await send({
        method: 'POST',
        path: '/items',
        body: JSON.stringify({ listId: list.json!.id, items: [{ title: text, body: text, externalId: text, values: { Note: text } }] }),
      });
      expect(created.status).toBe(201);
      const id = (created.json!.items as { id: string }[])[0]!.id;
      expect(await send({ method: 'GET', path: `/items/${id}` })).toMatchObject({
        status: 200,
        json: { title: text, body: text, externalId: text, values: expect.objectContaining({}) },
      });
      // Stored as sent: the row itself holds the text, the tables are all there, nothing else was written.
      expect(await server.db('items').where({ id }).first()).toMatchObject({ title: text, body: text, external_id: text });
      expect(Number(((await server.db('items').count('* as n')) as { n: string }[])[0]!.n)).toBe(itemsBefore + 1);
      expect(await server.db('lists').where({ id: list.json!.id }).first()).toMatchObject({ name: text, instructions: text });
      // As a filter it matches itself, not everything.
      const search = await send({ method: 'GET', path: `/items?listId=${list.json!.id}&query=${encodeURIComponent(text)}` });
      expect((search.json!.items as { id: string }[]).map((i) => i.id)).toEqual([id]);
      const other = await send({
        method: 'POST',
        path: '/items/query',
        body: JSON.stringify({ listId: list.json!.id, where: [{ property: 'Note', op: 'eq', value: `${text}!` }], mode: 'count' }),
      });
      expect(other.json).toMatchObject({ count: 0 });
      const same = await send({
        method: 'POST',
        path: '/items/query',
        body: JSON.stringify({ listId: list.json!.id, where: [{ property: 'Note', op: 'eq', value: text }], mode: 'count' }),
      });
      expect(same.json).toMatchObject({ count: 1 });
      // Over MCP the same text comes back as text, not markup.
      const viaMcp = await mcp.callTool({ name: 'get_item', arguments: { id } });
      expect(viaMcp.structuredContent).toMatchObject({ title: text, body: text });
    });
  });

  describe('every documented limit, one over', () => {
    const cases = operationTable.flatMap((op) => limitCases(op).map((c) => ({ name: `${op.operationId} ${c.field}: ${c.what}`, op, ...c })));

    it('finds the limits of the spec', () => {
      const fields = cases.map((c) => `${c.op.operationId} ${c.field}`);
      expect(fields).toEqual(
        expect.arrayContaining([
          'create_items items',
          'create_items items[0].title',
          'update_items items',
          'delete_items itemIds',
          'create_list instructions',
          'list_items limit',
          'query_items where',
        ]),
      );
    });

    it.each(cases)('$name', async ({ op, field, input }) => {
      const params = { ...input.params };
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
        const value = String(
          params[name] ?? (name === 'id' ? (op.path.startsWith('/items') ? ids.item : op.path.startsWith('/lists') ? ids.list : randomUUID()) : 'x'),
        );
        delete params[name];
        return encodeURIComponent(value);
      });
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)])).toString();
      const req: Sent = {
        method: op.method,
        path: `${path}${query ? `?${query}` : ''}`,
        ...(input.body ? { body: JSON.stringify(fill(input.body, ids)) } : {}),
      };
      await refused(req, { status: 400, code: 'invalid', field });
    });
  });
});

interface LimitCase {
  field: string;
  what: string;
  input: { params: Record<string, unknown>; body: Record<string, unknown> | undefined };
}

/** For each limit (maxLength, maxItems, maximum, minimum) of a parameter, a body field or a field of the first entry of a body array: an input one over it. */
function limitCases(op: OperationSpec): LimitCase[] {
  const out: LimitCase[] = [];
  const base = () => baseInput(op);
  for (const [name, schema] of Object.entries((op.paramsSchema.properties ?? {}) as Record<string, JsonSchema>)) {
    for (const over of overLimit(schema, name))
      out.push({ field: over.field, what: over.what, input: { ...base(), params: { ...base().params, [name]: over.value } } });
  }
  for (const [name, schema] of Object.entries((op.bodySchema?.properties ?? {}) as Record<string, JsonSchema>)) {
    for (const over of overLimit(schema, name)) {
      const input = base();
      out.push({ field: over.field, what: over.what, input: { ...input, body: { ...input.body, [name]: over.value } } });
    }
    const entry =
      schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array')) ? (schema.items as JsonSchema | undefined) : undefined;
    for (const [inner, innerSchema] of Object.entries((entry?.properties ?? {}) as Record<string, JsonSchema>)) {
      for (const over of overLimit(innerSchema, `${name}[0].${inner}`)) {
        const input = base();
        const first = {
          ...((((input.body?.[name] as Record<string, unknown>[] | undefined) ?? [])[0] ?? minimal(entry!)) as Record<string, unknown>),
          [inner]: over.value,
        };
        out.push({ field: over.field, what: over.what, input: { ...input, body: { ...input.body, [name]: [first] } } });
      }
    }
  }
  return out;
}

/** Values one past each limit of `schema` (which must otherwise be valid), with the field the refusal should name. */
function overLimit(schema: JsonSchema, field: string): { field: string; what: string; value: unknown }[] {
  const out: { field: string; what: string; value: unknown }[] = [];
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (typeof schema.maxLength === 'number' && types.includes('string') && !schema.format && !schema.enum) {
    // A pattern such as "not blank" or "starts with https://" is kept by starting the text with what it asks.
    const prefix = typeof schema.pattern === 'string' && schema.pattern.startsWith('^https://') ? 'https://' : '';
    out.push({ field, what: `maxLength ${schema.maxLength}`, value: prefix + 'x'.repeat(schema.maxLength + 1 - prefix.length) });
  }
  if (typeof schema.maxItems === 'number' && types.includes('array') && schema.items) {
    const element = minimal(schema.items as JsonSchema);
    out.push({ field, what: `maxItems ${schema.maxItems}`, value: Array.from({ length: schema.maxItems + 1 }, () => structuredClone(element)) });
  }
  if (typeof schema.maximum === 'number' && (types.includes('integer') || types.includes('number')))
    out.push({ field, what: `maximum ${schema.maximum}`, value: schema.maximum + 1 });
  if (typeof schema.minimum === 'number' && (types.includes('integer') || types.includes('number')))
    out.push({ field, what: `minimum ${schema.minimum}`, value: schema.minimum - 1 });
  return out;
}

/** The smallest valid value of a schema (placeholders ITEM and LIST stand for ids, filled in per call). */
function minimal(schema: JsonSchema): unknown {
  if (schema.enum) return (schema.enum as unknown[]).find((v) => v !== null);
  if (schema.anyOf) return minimal((schema.anyOf as JsonSchema[])[0]!);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string);
  switch (type) {
    case 'string':
      return schema.format === 'uuid'
        ? 'ITEM'
        : schema.format === 'date-time'
          ? '2026-01-01T00:00:00Z'
          : 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default: {
      const out: Record<string, unknown> = {};
      for (const name of (schema.required as string[] | undefined) ?? []) out[name] = minimal(((schema.properties ?? {}) as Record<string, JsonSchema>)[name]!);
      return out;
    }
  }
}

function baseInput(op: OperationSpec): { params: Record<string, unknown>; body: Record<string, unknown> | undefined } {
  const doc = openapiDocument as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>> };
  const example = doc.paths[op.path]?.[op.method.toLowerCase()]?.requestBody?.content['application/json']?.example;
  const params: Record<string, unknown> = {};
  for (const p of op.params) if (p.required && p.in === 'query') params[p.name] = minimal((op.paramsSchema.properties as Record<string, JsonSchema>)[p.name]!);
  return { params, body: op.bodySchema ? (structuredClone(example ?? minimal(op.bodySchema)) as Record<string, unknown>) : undefined };
}

/** Replaces the examples' ids and the ITEM/LIST placeholders by ids of the test account. */
function fill(body: unknown, ids: { item: string; list: string }): unknown {
  return JSON.parse(
    JSON.stringify(body)
      .replace(/"ITEM"/g, JSON.stringify(ids.item))
      .replace(/"LIST"/g, JSON.stringify(ids.list))
      .replace(/5e8c7d6e-8d79-4fb1-ae8c-6f5e6d1b0e54/g, ids.item),
  );
}
