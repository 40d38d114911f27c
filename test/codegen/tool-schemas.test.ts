/** The compaction of tool output schemas: shorter, never stricter than the REST schema, one level deep. */
import { describe, it, expect } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compactOutputSchema, topLevelOnly } from '../../codegen/tool-schemas.js';
import { INSTRUCTIONS } from '../../src/mcp/server.js';
import { tools } from '../../src/generated/tools.js';
import { operationTable } from '../../src/generated/operations.js';
import { openapiDocument } from '../../src/generated/openapi-document.js';

type Schema = Record<string, unknown>;
const ajv = () => new Ajv2020({ strict: false, allErrors: true });

/** Every keyword used anywhere in a schema, keys of `properties` maps excluded. */
function keywords(schema: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => keywords(s, out));
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' || key === '$defs') Object.values(value as object).forEach((v) => keywords(v, out));
      else {
        out.add(key);
        keywords(value, out);
      }
    }
  }
  return out;
}

describe('compactOutputSchema', () => {
  it('keeps a property named like an annotation keyword and drops the annotations', () => {
    const out = compactOutputSchema(
      { type: 'object', required: ['description'], properties: { description: { type: 'string', description: 'What it does.', example: 'x', maxLength: 5 } } },
      {},
    );
    expect(out).toEqual({ type: 'object', required: ['description'], properties: { description: { type: 'string' } } });
  });

  it('writes anyOf [enum, null] as one enum with null, and drops a type the enum implies', () => {
    const out = compactOutputSchema(
      { type: 'object', properties: { s: { anyOf: [{ $ref: '#/components/schemas/S' }, { type: 'null' }] } } },
      { S: { type: 'string', enum: ['a', 'b'], description: 'd' } },
    );
    expect(out.properties).toEqual({ s: { enum: ['a', 'b', null] } });
  });

  it('widens an object branch beside null instead of keeping anyOf', () => {
    const out = compactOutputSchema(
      { type: 'object', properties: { o: { anyOf: [{ type: 'object', properties: { a: { type: 'integer' } } }, { type: 'null' }] } } },
      {},
    );
    expect(out.properties).toEqual({ o: { type: ['object', 'null'], properties: { a: { type: 'integer' } } } });
  });

  it('merges an allOf of plain objects', () => {
    const out = compactOutputSchema(
      { allOf: [{ $ref: '#/components/schemas/A' }, { type: 'object', properties: { b: { type: 'boolean' } } }] },
      { A: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } },
    );
    expect(out).toEqual({ type: 'object', required: ['a'], properties: { a: { type: 'string' }, b: { type: 'boolean' } } });
  });

  it('puts a large component used twice into $defs once, and inlines one used once', () => {
    const big = {
      type: 'object',
      properties: Object.fromEntries(['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'].map((k) => [k, { type: 'string' }])),
    };
    const out = compactOutputSchema(
      {
        type: 'object',
        properties: {
          a: { $ref: '#/components/schemas/Big' },
          b: { type: 'array', items: { $ref: '#/components/schemas/Big' } },
          c: { $ref: '#/components/schemas/Once' },
        },
      },
      { Big: big, Once: { type: 'object', properties: { n: { type: 'number' } } } },
    );
    expect(out.properties).toEqual({
      a: { $ref: '#/$defs/Big' },
      b: { type: 'array', items: { $ref: '#/$defs/Big' } },
      c: { type: 'object', properties: { n: { type: 'number' } } },
    });
    expect(out.$defs).toEqual({ Big: big });
  });

  it('inlines a component used twice when it is small', () => {
    const out = compactOutputSchema(
      { type: 'object', properties: { a: { $ref: '#/components/schemas/T' }, b: { $ref: '#/components/schemas/T' } } },
      { T: { type: 'string', enum: ['x', 'y'] } },
    );
    expect(out).toEqual({ type: 'object', properties: { a: { enum: ['x', 'y'] }, b: { enum: ['x', 'y'] } } });
  });
});

describe('topLevelOnly', () => {
  it("keeps each field's type, enum or branch types and the required names, nothing deeper and no $defs", () => {
    const out = topLevelOnly({
      type: 'object',
      required: ['items', 'mode'],
      properties: {
        items: { type: 'array', items: { $ref: '#/$defs/Row' } },
        row: { $ref: '#/$defs/Row' },
        mode: { enum: ['a', 'b'] },
        either: { anyOf: [{ type: 'string' }, { type: 'object', properties: { x: { type: 'integer' } } }, { type: 'string', format: 'uuid' }] },
        free: { description: 'anything' },
      },
      $defs: { Row: { type: 'object', properties: { id: { type: 'string' } } } },
    });
    expect(out).toEqual({
      type: 'object',
      required: ['items', 'mode'],
      properties: {
        items: { type: 'array' },
        row: { type: 'object' },
        mode: { enum: ['a', 'b'] },
        either: { anyOf: [{ type: 'string' }, { type: 'object' }] },
        free: {},
      },
    });
  });
});

describe('the generated tool list', () => {
  const STRUCTURAL = new Set([
    'type',
    'properties',
    'required',
    'items',
    'prefixItems',
    'additionalProperties',
    'enum',
    'const',
    'anyOf',
    'oneOf',
    'allOf',
    'not',
    '$ref',
  ]);

  it.each(tools.map((t) => [t.name, t] as const))('%s: output schema has structure only, one level deep, object root', (_name, tool) => {
    expect(tool.outputSchema.type).toBe('object');
    expect([...keywords(tool.outputSchema)].filter((k) => !STRUCTURAL.has(k))).toEqual([]);
    for (const field of Object.values(tool.outputSchema.properties as Record<string, Schema>))
      expect(Object.keys(field).filter((k) => !['type', 'enum', 'const', 'anyOf'].includes(k))).toEqual([]);
    expect(JSON.stringify(tool.outputSchema)).not.toContain('$ref');
    ajv().compile(tool.outputSchema);
  });

  // Every documented success example must pass the REST schema and the tool schema alike:
  // the compact schema may only be looser.
  const paths = openapiDocument.paths as Record<
    string,
    Record<string, { operationId?: string; responses?: Record<string, { content?: Record<string, { example?: unknown }> }> }>
  >;
  const examples = operationTable
    .filter((op) => op.tool)
    .flatMap((op) => {
      const responses = paths[op.path]?.[op.method.toLowerCase()]?.responses ?? {};
      const example = responses[String(op.successStatus)]?.content?.['application/json']?.example;
      return example === undefined ? [] : [[op.operationId, example] as const];
    });
  it('has a success example for most tools', () => expect(examples.length).toBeGreaterThanOrEqual(18));
  it.each(examples)('%s: its response example validates against both schemas', (operationId, example) => {
    const op = operationTable.find((o) => o.operationId === operationId)!;
    const tool = tools.find((t) => t.name === operationId)!;
    const full = ajv().compile(op.outputSchema as Schema);
    expect(full(example) ? [] : full.errors).toEqual([]);
    const compact = ajv().compile(tool.outputSchema);
    expect(compact(example) ? [] : compact.errors).toEqual([]);
  });

  it('tells the model once, in the server instructions, that object and array arguments may come as JSON strings', () => {
    expect(INSTRUCTIONS).toContain('Tools that take objects or arrays also accept them as JSON strings.');
    expect(tools.filter((t) => t.description.includes('JSON strings')).map((t) => t.name)).toEqual([]);
  });
});
