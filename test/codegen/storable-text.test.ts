/**
 * The served OpenAPI document says which text the service refuses: every request string that is
 * stored or compared excludes U+0000 (a pattern a fuzzer and a generator read), and the service
 * answers such text with 400 invalid, so a contract run with Schemathesis' defaults finds no
 * "schema-valid request rejected".
 */
import { describe, it, expect } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openapiDocument } from '../../src/generated/openapi-document.js';
import { useTestServer } from '../support/server.js';

type Schema = Record<string, unknown>;
const STORABLE = '^[^\\x00]*$';
/** Formats whose grammar has no U+0000 (codegen/storable-text.ts leaves strings with one of them as they are). */
const FORMATS_WITHOUT_NUL = ['date', 'date-time', 'time', 'uuid', 'uri', 'email'];
const doc = openapiDocument as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, Schema> };
};

/** Every string schema reachable from request parameters and bodies, with where it is. */
function requestStrings(): { at: string; schema: Schema }[] {
  const found: { at: string; schema: Schema }[] = [];
  const seen = new Set<Schema>();
  const visit = (node: Schema | undefined, at: string): void => {
    if (!node || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === 'string') {
      visit(doc.components.schemas[node.$ref.split('/').pop()!], node.$ref);
      return;
    }
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('string')) found.push({ at, schema: node });
    const isObject = types.includes('object') || node.properties !== undefined;
    if (isObject && node.additionalProperties !== false) found.push({ at: `${at} (keys)`, schema: { type: 'string', ...(node.propertyNames as Schema) } });
    if (node.additionalProperties && typeof node.additionalProperties === 'object') visit(node.additionalProperties as Schema, `${at}.*`);
    if (node.items && typeof node.items === 'object') visit(node.items as Schema, `${at}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(node[key])) (node[key] as Schema[]).forEach((b, i) => visit(b, `${at}/${key}/${i}`));
    for (const [name, child] of Object.entries((node.properties as Record<string, Schema>) ?? {})) visit(child, `${at}.${name}`);
  };
  const parameter = (raw: Schema) => (typeof raw.$ref === 'string' ? doc.components.parameters[raw.$ref.split('/').pop()!]! : raw);
  for (const [path, item] of Object.entries(doc.paths)) {
    // Parameters of the path item itself (a list's or an item's id) apply to each of its operations.
    for (const raw of (item.parameters as unknown as Schema[] | undefined) ?? [])
      visit(parameter(raw).schema as Schema, `${path} {${String(parameter(raw).name)}}`);
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      for (const raw of (op.parameters as Schema[] | undefined) ?? [])
        visit(parameter(raw).schema as Schema, `${method} ${path} ?${String(parameter(raw).name)}`);
      const body = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content?.['application/json']?.schema;
      visit(body, `${method} ${path} body`);
    }
  }
  return found;
}

const refusesNul = (schema: Schema) =>
  schema.enum !== undefined ||
  schema.const !== undefined ||
  FORMATS_WITHOUT_NUL.includes(String(schema.format)) ||
  schema.pattern === STORABLE ||
  ((schema.allOf as Schema[] | undefined) ?? []).some((s) => s.pattern === STORABLE);

describe('text the service refuses, in the served document', () => {
  const { server, ada } = useTestServer();

  it('excludes U+0000 from every request string and map key that is stored or compared', () => {
    const strings = requestStrings();
    expect(strings.length).toBeGreaterThan(80);
    expect(strings.filter((s) => !refusesNul(s.schema)).map((s) => s.at)).toEqual([]);
  });

  it('serves that document', async () => {
    const served = await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json();
    expect(JSON.stringify(served)).toContain(JSON.stringify(STORABLE));
  });

  it('rejects text with U+0000 in its schemas (read as JSON Schema 2020-12), and the service answers it with 400 naming the field', async () => {
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
    const validate = ajv.compile({ $ref: '#/components/schemas/CreateItemsInput' });
    expect(validate({ items: [{ title: 'fine' }] })).toBe(true);
    expect(validate({ items: [{ title: 'nul \u0000 here' }] })).toBe(false);
    const { response, error } = await ada.sdk.POST('/items', { body: { items: [{ title: 'nul \u0000 here' }] } });
    expect(response.status).toBe(400);
    expect(error?.code).toBe('invalid');
    expect(error?.error).toContain('U+0000');
  });

  it('spells the rule so that ECMA-262 reads it alike with and without the u flag: U+0000 out, everything else in', () => {
    for (const flags of ['u', '']) {
      const re = new RegExp(STORABLE, flags);
      expect(['a\u0000b', '\u0000', 'line\n\u0000'].filter((t) => re.test(t))).toEqual([]);
      expect(['', 'plain', 'line\nbreak', 'tab\tbell\u0007', '📚 👩🏽‍💻', 'שלום\u200F', '\uFEFF\u{10FFFD}'].filter((t) => !re.test(t))).toEqual([]);
    }
  });

  // Where Schemathesis' defaults sent U+0000 before the document said so (issue 30): each is
  // refused at validation, before any lookup, with 400 naming the field.
  const ITEM = '5e8c7d6e-8d79-4fb1-ae8c-6f5e6d1b0e54';
  it.each([
    ['itemIds', 'DELETE', '/items', { itemIds: ['a\u0000b'] }, 'itemIds[0]'],
    ['messageKey', 'POST', `/items/${ITEM}/messages`, { message: 'hi', messageKey: 'k\u0000' }, 'messageKey'],
    ['a property name', 'POST', '/lists', { name: 'Books', properties: [{ name: 'Auth\u0000or', type: 'text' }] }, 'properties[0].name'],
    [
      'an option label',
      'POST',
      '/lists',
      { name: 'Books', properties: [{ name: 'Genre', type: 'select', options: ['Sci\u0000fi'] }] },
      'properties[0].options[0]',
    ],
    ['where[].property', 'POST', '/items/query', { listId: 'tasks', where: [{ property: 'ti\u0000tle', op: 'contains', value: 'x' }] }, 'where[0].property'],
    ['a value key', 'POST', '/items', { items: [{ title: 'ok', values: { 'Aut\u0000hor': 'x' } }] }, 'items[0].values.Aut\u0000hor'],
    [
      'an edit field',
      'PATCH',
      '/items',
      { items: [{ itemId: ITEM, edits: [{ op: 'replaceText', handle: 'b1', find: 'a\u0000', replace: 'b' }] }] },
      'items[0].edits[0].find',
    ],
    ['a query parameter', 'GET', '/items?query=a%00b', undefined, 'query'],
    ['a path parameter', 'PATCH', '/lists/a%00b', { name: 'x' }, 'id'],
  ])('refuses U+0000 in %s with 400 invalid naming the field', async (_case, method, path, body, field) => {
    const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${ada.key}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { code: string; error: string; field?: string };
    expect(answer).toMatchObject({ code: 'invalid', field });
    expect(answer.error).toMatch(/contains a NUL character \(U\+0000\) at position \d+, which cannot be stored/);
  });
});
