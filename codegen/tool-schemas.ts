/**
 * The MCP tool list is sent to the model in every conversation, so its output schemas carry
 * the top level of an answer only: `topLevelOnly(compactOutputSchema(…))` is the tool's
 * `outputSchema`, the answer's fields with their JSON types (and enums), required ones named;
 * what is inside a list or an object is the tool description's to say, and the model reads it
 * in the answer itself. `compactOutputSchema` turns an operation's response schema into the
 * structure it is cut from:
 * - keeps the structural keywords (type, properties, required, items, enum, const,
 *   additionalProperties, anyOf/oneOf/allOf, not) and drops every annotation and bound
 *   (description, example, format, lengths, ...): the tool's description says what the
 *   fields mean, and the REST adapter still checks the full schema;
 * - writes `anyOf: [S, {type: null}]` as S with `null` added to its type (and enum), and drops
 *   a `type` that an `enum` already implies;
 * - merges an `allOf` of plain object schemas into one object;
 * - puts a component used more than once (Property, ItemRow, ...) into `$defs` once, under its
 *   OpenAPI name.
 * Every rewrite accepts exactly what the original accepts, or more (dropped bounds), so a
 * result that passes the REST schema always passes the tool's output schema.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords kept in an output schema; everything else is an annotation or a bound. */
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
/** A component smaller than this (as JSON) is inlined even when used more than once. */
const MIN_DEF_CHARS = 120;
const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refName(node: JsonObject): string | null {
  const ref = node.$ref;
  if (typeof ref !== 'string') return null;
  const match = COMPONENT_REF.exec(ref);
  if (!match) throw new Error(`unsupported $ref ${ref} in an output schema`);
  return match[1]!;
}

/** Calls `visit` on every subschema of `node` (not on `node` itself). */
function forEachSubschema(node: JsonObject, visit: (child: JsonObject) => void): void {
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && isObject(value)) Object.values(value).forEach((v) => isObject(v) && visit(v));
    else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isObject(value)) visit(value);
    else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems') && Array.isArray(value))
      value.forEach((v) => isObject(v) && visit(v));
  }
}

/** How often each component appears once `defs` are referenced instead of expanded. */
function countUses(root: JsonObject, components: Record<string, JsonObject>, defs: Set<string>): Map<string, number> {
  const counts = new Map<string, number>();
  const walk = (node: JsonObject): void => {
    const name = refName(node);
    if (name) {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      if (!defs.has(name)) walk(component(components, name));
      return;
    }
    forEachSubschema(node, walk);
  };
  walk(root);
  for (const name of defs) forEachSubschema(component(components, name), walk);
  return counts;
}

function component(components: Record<string, JsonObject>, name: string): JsonObject {
  const schema = components[name];
  if (!schema) throw new Error(`unknown component schema ${name}`);
  return schema;
}

/** The tool output schema for a response schema that may use `#/components/schemas/...` refs. */
export function compactOutputSchema(schema: JsonObject, components: Record<string, JsonObject>): JsonObject {
  // Components used twice or more become $defs; iterate because a component used twice only
  // inside another one that became a def is then used once.
  let defs = new Set([...countUses(schema, components, new Set())].filter(([, n]) => n >= 2).map(([name]) => name));
  for (;;) {
    const counts = countUses(schema, components, defs);
    const kept = new Set([...defs].filter((name) => (counts.get(name) ?? 0) >= 2));
    if (kept.size === defs.size) break;
    defs = kept;
  }
  const build = (node: JsonObject): JsonObject => {
    const name = refName(node);
    if (name) return defs.has(name) ? { $ref: `#/$defs/${name}` } : build(component(components, name));
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (!STRUCTURAL.has(key) || value === undefined) continue;
      if (key === 'additionalProperties' && value === true) continue; // the default
      if (key === 'properties' && isObject(value)) out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObject(v) ? build(v) : v]));
      else if ((key === 'items' || key === 'additionalProperties' || key === 'not') && isObject(value)) out[key] = build(value);
      else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems') && Array.isArray(value))
        out[key] = value.map((v) => (isObject(v) ? build(v) : v));
      else out[key] = value;
    }
    return simplify(out);
  };
  // Drop defs that turned out small once compacted: inline them and build again.
  let built = buildWithDefs(schema, components, defs, build);
  const small = [...defs].filter((name) => JSON.stringify(built.defs[name]).length < MIN_DEF_CHARS);
  if (small.length > 0) {
    for (const name of small) defs.delete(name);
    built = buildWithDefs(schema, components, defs, build);
  }
  const root = built.root;
  if (root.type === undefined) root.type = 'object';
  return Object.keys(built.defs).length > 0 ? { ...root, $defs: built.defs } : root;
}

function buildWithDefs(
  schema: JsonObject,
  components: Record<string, JsonObject>,
  defs: Set<string>,
  build: (node: JsonObject) => JsonObject,
): { root: JsonObject; defs: JsonObject } {
  const root = build(schema);
  const out: JsonObject = {};
  for (const name of [...defs].sort()) out[name] = build(component(components, name));
  return { root, defs: out };
}

/** Equivalent, shorter spellings of one (already compacted) schema node. */
function simplify(node: JsonObject): JsonObject {
  let out = mergeAllOf(node);
  out = collapseNullable(out);
  return dropImpliedType(out);
}

/** `allOf` of plain object schemas with disjoint (or identical) properties → one object schema. */
function mergeAllOf(node: JsonObject): JsonObject {
  const parts = node.allOf;
  if (!Array.isArray(parts)) return node;
  const { allOf: _allOf, ...rest } = node;
  const branches = [rest, ...parts].filter(isObject);
  const plain = branches.every(
    (b) => Object.keys(b).every((k) => ['type', 'properties', 'required'].includes(k)) && (b.type === undefined || b.type === 'object'),
  );
  if (!plain || branches.length !== parts.length + 1) return node;
  const properties: JsonObject = {};
  const required = new Set<string>();
  for (const branch of branches) {
    for (const [key, value] of Object.entries(isObject(branch.properties) ? branch.properties : {})) {
      if (key in properties && JSON.stringify(properties[key]) !== JSON.stringify(value)) return node;
      properties[key] = value;
    }
    for (const name of Array.isArray(branch.required) ? branch.required : []) required.add(String(name));
  }
  return { type: 'object', ...(required.size > 0 ? { required: [...required] } : {}), properties };
}

/** `anyOf: [S, {type: 'null'}]` → S accepting null too (S needs a `type` or an `enum` to widen). */
function collapseNullable(node: JsonObject): JsonObject {
  const branches = node.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2 || Object.keys(node).length !== 1) return node;
  const nullIndex = branches.findIndex((b) => isObject(b) && b.type === 'null' && Object.keys(b).length === 1);
  const other = branches[1 - nullIndex];
  if (nullIndex < 0 || !isObject(other) || other.$ref !== undefined || (other.type === undefined && other.enum === undefined)) return node;
  const out: JsonObject = { ...other };
  if (other.type !== undefined) {
    const types = Array.isArray(other.type) ? other.type : [other.type];
    out.type = types.includes('null') ? types : [...types, 'null'];
  }
  if (Array.isArray(other.enum) && !other.enum.includes(null)) out.enum = [...other.enum, null];
  return out;
}

function jsonType(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** `type` beside an `enum` whose every value already has one of those types says nothing more. */
function dropImpliedType(node: JsonObject): JsonObject {
  if (!Array.isArray(node.enum) || node.type === undefined) return node;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  const implied = node.enum.every((v) => types.includes(jsonType(v)) || (jsonType(v) === 'integer' && types.includes('number')));
  if (!implied) return node;
  const { type: _type, ...rest } = node;
  return rest;
}

/**
 * The top level of a compacted output schema: each field's JSON type (or enum, or the types of
 * its branches), nothing deeper, and no `$defs`. It accepts everything the full schema accepts.
 */
export function topLevelOnly(schema: JsonObject): JsonObject {
  const defs = isObject(schema.$defs) ? schema.$defs : {};
  const typeOf = (node: Json): JsonObject => {
    if (!isObject(node)) return {};
    const ref = typeof node.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1] : undefined;
    if (ref) return typeOf(defs[ref] ?? null);
    if (node.type !== undefined) return { type: node.type };
    if (Array.isArray(node.enum)) return { enum: node.enum };
    if (node.const !== undefined) return { const: node.const };
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = node[key];
      if (!Array.isArray(branches)) continue;
      const types = branches.map(typeOf);
      if (types.some((t) => Object.keys(t).length === 0)) return {};
      const distinct = [...new Map(types.map((t) => [JSON.stringify(t), t])).values()];
      return distinct.length === 1 ? distinct[0]! : { anyOf: distinct };
    }
    return {};
  };
  const properties = isObject(schema.properties) ? schema.properties : {};
  return {
    type: 'object',
    ...(Array.isArray(schema.required) ? { required: schema.required } : {}),
    properties: Object.fromEntries(Object.entries(properties).map(([name, node]) => [name, typeOf(node)])),
  };
}
