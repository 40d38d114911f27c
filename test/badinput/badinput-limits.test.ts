/** Bad input, continued: text that only looks dangerous is stored verbatim, and every documented limit, one over, is refused. */
import { describe, it, expect } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { operationTable } from '../../src/generated/operations.js';
import { openapiDocument } from '../../src/generated/openapi-document.js';
import type { JsonSchema, OperationSpec } from '../../src/core/operation-spec.js';
import { useBadInput, type Sent } from './bad-input-fixture.js';

describe('bad input: injection and limits', () => {
  const { server, mcp, ids, send, refused } = useBadInput();

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
