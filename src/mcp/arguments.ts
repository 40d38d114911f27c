/**
 * Tolerant tool arguments. Many MCP clients (and models) send object and array arguments as
 * JSON strings — `"items": "[{\"title\": \"x\"}]"`, or one level down, `"values": "{…}"`.
 * Wherever a tool's input schema expects an object or an array and does not also accept a
 * string, a string that parses to the expected kind is used as parsed, at any depth. Anything
 * else is left alone, so schema validation names the field when it is still wrong.
 */
import type { JsonSchema, ToolDefinition } from '../core/operation-spec.js';
import type { RawInput } from '../operations/dispatch.js';

type Kind = 'object' | 'array';

/** The JSON types a schema admits, through anyOf/oneOf branches; empty when it says nothing. */
function admittedTypes(schema: JsonSchema): Set<string> {
  const types = new Set<string>();
  const type: unknown = schema.type;
  for (const t of Array.isArray(type) ? type : type ? [type] : []) types.add(String(t));
  if (schema.properties && !type) types.add('object');
  if (schema.items && !type) types.add('array');
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches: unknown = schema[key];
    if (Array.isArray(branches)) for (const b of branches) if (b && typeof b === 'object') admittedTypes(b as JsonSchema).forEach((t) => types.add(t));
  }
  return types;
}

/** The (sub)schema that describes values of `kind`: the schema itself or its first matching branch. */
function schemaFor(schema: JsonSchema, kind: Kind): JsonSchema | undefined {
  const type: unknown = schema.type;
  const own = Array.isArray(type) ? type.includes(kind) : type === kind;
  if (own || (!type && (kind === 'object' ? schema.properties : schema.items))) return schema;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches: unknown = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const b of branches) {
      const found = b && typeof b === 'object' ? schemaFor(b as JsonSchema, kind) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}

function kindOf(value: unknown): Kind | null {
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' && value !== null ? 'object' : null;
}

/** `value` with every JSON string that stands where `schema` expects an object or array parsed. */
export function parseJsonStrings(schema: JsonSchema | undefined, value: unknown): unknown {
  if (!schema || typeof schema !== 'object') return value;
  if (typeof value === 'string') {
    const types = admittedTypes(schema);
    if (types.has('string') || !(types.has('object') || types.has('array'))) return value;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return value; // not JSON: validation names the field
    }
    const kind = kindOf(parsed);
    return kind && types.has(kind) ? parseJsonStrings(schema, parsed) : value;
  }
  const kind = kindOf(value);
  const sub = kind ? schemaFor(schema, kind) : undefined;
  if (!sub) return value;
  if (kind === 'array') {
    const items = sub.items as JsonSchema | undefined;
    return items && typeof items === 'object' ? (value as unknown[]).map((v) => parseJsonStrings(items, v)) : value;
  }
  const properties = (sub.properties ?? {}) as Record<string, JsonSchema>;
  const extra = typeof sub.additionalProperties === 'object' ? (sub.additionalProperties as JsonSchema) : undefined;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, parseJsonStrings(properties[k] ?? extra, v)]));
}

/**
 * A tool call's arguments as an operation's input, read in one pass: each argument is parsed
 * against its property's schema (see above) and filed as a parameter or a body field.
 */
export function readToolArguments(tool: ToolDefinition, args: Record<string, unknown>, parameterNames: ReadonlySet<string>, takesBody: boolean): RawInput {
  const properties = tool.inputSchema.properties ?? {};
  const params: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) (parameterNames.has(key) ? params : body)[key] = parseJsonStrings(properties[key], value);
  return { params, body: takesBody || Object.keys(body).length > 0 ? body : undefined };
}
