/**
 * The served OpenAPI document's refusal of U+0000 in request text, stated where generators and
 * fuzzers read it (codegen/gen.ts writes the document with it).
 */
import { HTTP_METHODS } from './person-paths.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function asObject(value: Json | undefined): JsonObject {
  return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/**
 * What every request string the service stores or compares must match: no U+0000 (Postgres text
 * cannot hold it). Spelled `\x00`, which ECMA-262 with and without the `u` flag (Ajv, JS clients),
 * Python's `re` (Schemathesis draws from it), Rust's `regex` (Schemathesis validates with
 * jsonschema-rs), Go's RE2 and PCRE all read as U+0000; Go and PCRE refuse `\u0000`.
 */
const STORABLE_TEXT = '^[^\\x00]*$';
/** Formats whose grammar has no U+0000; to a generator that does not know it, any other format is an annotation. */
const FORMATS_WITHOUT_NUL = ['date', 'date-time', 'time', 'uuid', 'uri', 'email'];

/**
 * The served document states the refusal where a generator and a fuzzer read it: every string
 * schema of a request (parameters, bodies, and the components they use) that has no `enum`,
 * `const` or format of FORMATS_WITHOUT_NUL gets `pattern: STORABLE_TEXT` (beside a pattern of
 * its own through `allOf`), and every object that takes keys it does not list gets it as
 * `propertyNames`.
 * Response schemas are left as written. Done on the served copy only: the validators and the
 * MCP tools read the operation table, and the service refuses such text with its own sentence.
 */
export function withStorableText(bundled: JsonObject): JsonObject {
  const doc = JSON.parse(JSON.stringify(bundled)) as JsonObject;
  const components = asObject(asObject(doc.components).schemas);
  const seen = new Set<JsonObject>();
  const visitRef = (ref: string) => {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    if (match && components[match[1]!]) visit(asObject(components[match[1]!]));
  };
  const visit = (node: JsonObject): void => {
    if (seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === 'string') {
      visitRef(node.$ref);
      return;
    }
    const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
    if (types.includes('string') && node.enum === undefined && node.const === undefined && !FORMATS_WITHOUT_NUL.includes(String(node.format))) {
      if (node.pattern === undefined) node.pattern = STORABLE_TEXT;
      else if (node.pattern !== STORABLE_TEXT) node.allOf = [...((node.allOf as Json[] | undefined) ?? []), { pattern: STORABLE_TEXT }];
    }
    // Keys of a map, and of an object open to keys it does not list (create_items reports those as unknownKeys).
    const isObject = types.includes('object') || node.properties !== undefined;
    if (isObject && node.additionalProperties !== false) node.propertyNames = { ...asObject(node.propertyNames), pattern: STORABLE_TEXT };
    if (node.additionalProperties && typeof node.additionalProperties === 'object') visit(asObject(node.additionalProperties));
    // Not into `not`: the pattern there would admit U+0000 instead of refusing it.
    if (node.items && typeof node.items === 'object' && !Array.isArray(node.items)) visit(asObject(node.items));
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const)
      if (Array.isArray(node[key])) for (const b of node[key] as Json[]) visit(asObject(b));
    for (const child of Object.values(asObject(node.properties))) visit(asObject(child));
  };
  for (const pathItem of Object.values(asObject(doc.paths))) {
    const item = asObject(pathItem);
    const operations = HTTP_METHODS.map((m) => asObject(item[m])).filter((op) => Object.keys(op).length);
    const parameters = [item.parameters, ...operations.map((op) => op.parameters)].flatMap((list) => (Array.isArray(list) ? list : []));
    for (const raw of parameters) {
      let parameter = asObject(raw);
      if (typeof parameter.$ref === 'string') {
        const name = /^#\/components\/parameters\/(.+)$/.exec(parameter.$ref)?.[1];
        parameter = asObject(asObject(asObject(doc.components).parameters)[name ?? '']);
      }
      visit(asObject(parameter.schema));
    }
    for (const op of operations) visit(asObject(asObject(asObject(asObject(op.requestBody).content)['application/json']).schema));
  }
  return doc;
}
