/**
 * Calling an operation by id: input validation against the generated JSON Schemas, the
 * handler, and (when configured) output validation. Every adapter calls `invoke` (REST and
 * MCP with a connection's principal, the web pages and the command line with the person's
 * through `call`); none holds behaviour of its own.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { operationTable, personOperationTable } from '../generated/operations.js';
import type { JsonSchema, OperationSpec } from '../core/operation-spec.js';
import { onPersonSurface, type OperationContext, type OperationId, type OpInput, type OpOutput } from '../core/context.js';
import { handlers, personHandlers } from './index.js';
import { type ApiError, insufficientScope, invalid, notFound, shown } from '../core/errors.js';
import type { Principal } from '../core/context.js';
import { allows, LATER_SCOPE, reachOf, scopesOf } from '../domain/accounts/grants.js';
import { withReach } from '../domain/reach.js';
import { canonicalInstant } from '../domain/time.js';
import { outputValuesByName } from '../domain/lists/values.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Compiled {
  spec: OperationSpec;
  params: ValidateFunction;
  body: ValidateFunction | null;
  output: ValidateFunction;
  paramNames: Set<string>;
}

function makeAjv(coerce: boolean): Ajv2020 {
  // strict: false because OpenAPI schemas carry annotations Ajv does not know (example, etc.).
  // verbose: errors carry the value received and the parent schema, which the sentences quote.
  const ajv = new Ajv2020({ strict: false, allErrors: false, verbose: true, useDefaults: true, coerceTypes: coerce ? 'array' : false });
  addFormats(ajv);
  return ajv;
}

const paramAjv = makeAjv(true);
const bodyAjv = makeAjv(false);
const outputAjv = makeAjv(false);

const specs = new Map([...operationTable, ...personOperationTable].map((spec) => [spec.operationId, spec]));
const allHandlers: Record<string, (ctx: OperationContext, input: never) => Promise<unknown>> = { ...handlers, ...personHandlers };
const compiled = new Map<string, Compiled>();

/** Compiles an operation's validators on first use: compiling all at once would slow the start. */
function compile(spec: OperationSpec): Compiled {
  let op = compiled.get(spec.operationId);
  if (!op) {
    op = {
      spec,
      params: paramAjv.compile(spec.paramsSchema),
      body: spec.bodySchema ? bodyAjv.compile(spec.bodySchema) : null,
      output: outputAjv.compile(spec.outputSchema),
      paramNames: new Set(spec.params.map((p) => p.name)),
    };
    compiled.set(spec.operationId, op);
  }
  return op;
}

/** Parameters (path and query, strings coerced to their types) and the JSON body, apart. */
export interface RawInput {
  params: Record<string, unknown>;
  body: unknown;
}

/** An operation's row of the generated table. */
export function operationSpec(operationId: string): OperationSpec | undefined {
  return specs.get(operationId);
}

/** The names of an operation's path and query parameters: the rest of a flat argument object is its body. */
export function parameterNames(operationId: string): ReadonlySet<string> {
  return mustCompile(operationId).paramNames;
}

/** Whether the operation has a request body at all. */
export function takesBody(operationId: string): boolean {
  return mustCompile(operationId).spec.bodySchema !== null;
}

/** Operations that make lists: a grant of chosen lists allows them only with "and lists I make later". */
const MAKES_LISTS = new Set(['create_list', 'create_import']);
/**
 * The refusal of an operation the principal's grant does not allow (its x-grant level, or a
 * new list on a grant of chosen lists), naming the scope to ask for; null when allowed. The
 * one check of grants against operations: dispatch runs it before every operation, and the
 * MCP adapter asks it to answer at the HTTP level and to leave tools out of tools/list.
 */
export function grantRefusal(principal: Principal, operationId: string, baseUrl: string): ApiError | null {
  const grant = principal.grant;
  const need = specs.get(operationId)?.grant;
  if (!grant || !need) return null;
  if (!allows(grant, need)) {
    const held = { read: 'may only read', write: 'may read and write but not delete', delete: '' }[grant.level];
    const scope = scopesOf({ ...grant, level: need });
    return insufficientScope(`This connection ${held}; ${operationId} needs the ${scope.split(' ')[0]} scope. Ask the person to allow it.`, scope, baseUrl);
  }
  if (MAKES_LISTS.has(operationId) && grant.lists && !grant.later) {
    const scope = `${scopesOf(grant)} ${LATER_SCOPE}`;
    return insufficientScope(
      `This connection reaches only chosen lists, so ${operationId} cannot make a new one; it needs the ${LATER_SCOPE} scope.`,
      scope,
      baseUrl,
    );
  }
  return null;
}

/** Validates the input, runs the operation and returns its output. */
export async function invoke(ctx: OperationContext, operationId: string, raw: RawInput, options: { validateOutput?: boolean } = {}): Promise<unknown> {
  const op = mustCompile(operationId);
  // The person's own operations exist for no connection, as REST and the MCP tools show none.
  if (op.spec.surface === 'person' && !onPersonSurface(ctx.principal)) {
    throw notFound(`There is no operation ${operationId}; the OpenAPI document at /api/v1/openapi.json lists every one.`);
  }
  const refusal = grantRefusal(ctx.principal, operationId, ctx.config.baseUrl);
  if (refusal) throw refusal;
  // The lists a grant of chosen lists reaches, once per call, for every read and write below.
  if (ctx.principal.grant?.lists && !ctx.reach) ctx = { ...ctx, reach: await reachOf(ctx.db, ctx.principal) };
  const reach = ctx.reach;
  const handler = allHandlers[operationId]!;
  const params = { ...raw.params };
  if (!op.params(params)) throw schemaError(op.params.errors, 'parameter');
  refuseUnstorableText(params, '', op.spec.paramsSchema);
  normalizeInstants(params, op.spec.paramsSchema);
  let body: Record<string, unknown> = {};
  if (op.body) {
    // No body at all is fine where the body is optional; a JSON `null` is a body, and not an object.
    if (raw.body === undefined || (raw.body === null && op.spec.bodyRequired)) {
      if (op.spec.bodyRequired) throw invalid(`${operationId} needs a JSON body; see its requestBody in the OpenAPI document.`);
    } else {
      if (!op.body(raw.body)) throw schemaError(op.body.errors, 'field');
      body = raw.body as Record<string, unknown>;
      refuseUnstorableText(body, '', op.spec.bodySchema!);
      normalizeInstants(body, op.spec.bodySchema!);
    }
  } else if (raw.body !== undefined && (raw.body === null || typeof raw.body !== 'object' || Array.isArray(raw.body))) {
    throw invalid(`${operationId} takes no body; received ${shown(raw.body)}. Its parameters are: ${[...op.paramNames].join(', ') || 'none'}.`);
  } else if (raw.body !== undefined && Object.keys(raw.body as object).length > 0) {
    const names = Object.keys(raw.body as object);
    throw invalid(
      `${operationId} takes no ${names.length > 1 ? 'fields' : 'field'} ${names.map((n) => `'${n}'`).join(', ')}; its parameters are: ${[...op.paramNames].join(', ') || 'none'}.`,
      names[0],
    );
  }
  const input = { ...params, ...body };
  const output = await withReach(reach, () => handler(ctx, input as never));
  // The `valuesBy: name` reading of list_items, query_items and get_item, one rewrite for all three.
  if (input.valuesBy === 'name' && output && typeof output === 'object') outputValuesByName(output as Record<string, unknown>);
  if (options.validateOutput && !op.output(output)) {
    const detail = (op.output.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new Error(`${operationId} produced output that does not match its schema: ${detail}`);
  }
  return output;
}

/**
 * Calls an operation with its input as one object (path and query parameters and body fields
 * side by side, as MCP sends them): how the web pages and the command line call as the person.
 */
export async function call<K extends OperationId>(ctx: OperationContext, operationId: K, input: OpInput<K>): Promise<OpOutput<K>> {
  const names = parameterNames(operationId);
  const params: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) (names.has(key) ? params : body)[key] = value;
  const hasBody = Object.keys(body).length > 0;
  return (await invoke(ctx, operationId, { params, body: hasBody ? body : undefined })) as OpOutput<K>;
}

// U+0000, or a surrogate half without its partner: Postgres text cannot hold either as sent.
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is the character refused
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Refuses, naming the field, any string (or object key) that is stored or compared and cannot
 * be stored verbatim: a NUL character or a lone UTF-16 surrogate. Walks the value beside its
 * schema: the value of a key the schema does not list (an entry's unknown field, reported and
 * dropped) is not stored and is not looked into. Every other character is stored as sent.
 */
function refuseUnstorableText(value: unknown, at: string, schema: JsonSchema | undefined): void {
  if (typeof value === 'string') {
    const bad = UNSTORABLE.exec(value);
    if (!bad) return;
    const field = at || 'body';
    const what = bad[0] === '\u0000' ? 'a NUL character (U+0000)' : `an unpaired UTF-16 surrogate (U+${bad[0].charCodeAt(0).toString(16).toUpperCase()})`;
    throw invalid(`'${field}' contains ${what} at position ${bad.index}, which cannot be stored; remove it or send whole Unicode characters.`, field);
  }
  if (value === null || typeof value !== 'object') return;
  const branch = schemaFor(schema, Array.isArray(value) ? 'array' : 'object');
  if (Array.isArray(value)) {
    const items = branch?.items as JsonSchema | undefined;
    value.forEach((v, i) => refuseUnstorableText(v, `${at}[${i}]`, items ?? (branch ? undefined : {})));
    return;
  }
  const properties = (branch?.properties ?? {}) as Record<string, JsonSchema>;
  const extra = branch?.additionalProperties;
  for (const [key, v] of Object.entries(value)) {
    const field = at ? `${at}.${key}` : key;
    if (UNSTORABLE.test(key)) refuseUnstorableText(key, field, undefined);
    const child = properties[key] ?? (typeof extra === 'object' ? (extra as JsonSchema) : branch ? undefined : {});
    if (child) refuseUnstorableText(v, field, child);
  }
}

/** The (sub)schema describing values of `kind`: the schema itself, or its first anyOf/oneOf branch of that type. */
function schemaFor(schema: JsonSchema | undefined, kind: 'array' | 'object'): JsonSchema | undefined {
  if (!schema) return undefined;
  const type: unknown = schema.type;
  const own = Array.isArray(type) ? type.includes(kind) : type === kind;
  if (own || (!type && !schema.anyOf && !schema.oneOf)) return schema;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key] as JsonSchema[] | undefined;
    const found = branches?.map((b) => schemaFor(b, kind)).find((b) => b !== undefined);
    if (found) return found;
  }
  return undefined;
}

/**
 * Rewrites each top-level `format: date-time` value as a UTC ISO instant (offset applied,
 * clamped to years 1–9999), so handlers and Postgres read every instant the schema admits.
 */
function normalizeInstants(values: Record<string, unknown>, schema: JsonSchema): void {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string' && properties[name]?.format === 'date-time') values[name] = canonicalInstant(value) ?? value;
  }
}

function mustCompile(operationId: string): Compiled {
  const spec = specs.get(operationId);
  if (!spec) throw new Error(`unknown operation ${operationId}`);
  return compile(spec);
}

/** One sentence from the first schema error: the field, what is allowed, what was received. */
export function schemaError(errors: ErrorObject[] | null | undefined, noun: 'parameter' | 'field'): ApiError {
  const e = errors?.[0];
  if (!e) return invalid('The request does not match the schema.');
  const at = pointerToField(e.instancePath);
  switch (e.keyword) {
    case 'required': {
      const field = joinField(at, String(e.params.missingProperty));
      return invalid(`${noun} '${field}' is required.`, field);
    }
    case 'additionalProperties': {
      const extra = String(e.params.additionalProperty);
      const field = joinField(at, extra);
      const allowed = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return invalid(`'${field}' is not a known ${noun}; valid: ${allowed.join(', ') || 'none'}.`, field);
    }
    case 'enum':
      return invalid(`'${at}' must be one of ${(e.params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}; received ${shown(e.data)}.`, at);
    case 'type': {
      const types = ([] as unknown[]).concat(e.params.type).map(String);
      return invalid(`'${at || 'body'}' must be ${types.join(' or ')}; received ${shown(e.data)}.`, at || undefined);
    }
    case 'anyOf':
    case 'oneOf':
      return invalid(`'${at}' has the wrong shape; received ${shown(e.data)}. See its schema in the OpenAPI document.`, at);
    default:
      return invalid(`'${at || 'body'}' ${e.message ?? 'is invalid'}; received ${shown(e.data)}.`, at || undefined);
  }
}

function pointerToField(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), '');
}

function joinField(base: string, name: string): string {
  return base ? `${base}.${name}` : name;
}
