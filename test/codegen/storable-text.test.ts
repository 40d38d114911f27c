/**
 * The served OpenAPI document says which text the service refuses: every request string that is
 * stored or compared excludes U+0000 (a pattern a fuzzer and a generator read), and the service
 * answers such text with 400 invalid, so a contract run with Schemathesis' defaults finds no
 * "schema-valid request rejected".
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openapiDocument } from '../../src/generated/openapi-document.js';
import { startTestServer, type TestAccount, type TestServer } from '../support/server.js';

type Schema = Record<string, unknown>;
const STORABLE = '^[^\\u0000]*$';
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
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      for (const raw of (op.parameters as Schema[] | undefined) ?? []) {
        const p = typeof raw.$ref === 'string' ? doc.components.parameters[raw.$ref.split('/').pop()!]! : raw;
        visit(p.schema as Schema, `${method} ${path} ?${String(p.name)}`);
      }
      const body = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content?.['application/json']?.schema;
      visit(body, `${method} ${path} body`);
    }
  }
  return found;
}

const refusesNul = (schema: Schema) =>
  schema.enum !== undefined ||
  schema.const !== undefined ||
  schema.format !== undefined ||
  schema.pattern === STORABLE ||
  ((schema.allOf as Schema[] | undefined) ?? []).some((s) => s.pattern === STORABLE);

describe('text the service refuses, in the served document', () => {
  let server: TestServer;
  let ada: TestAccount;
  beforeAll(async () => {
    server = await startTestServer();
    ada = await server.account('Ada');
  });
  afterAll(async () => server.close());

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
});
