/**
 * The REST adapter: routes /api/v1 requests to operations by operationId (openapi-backend's
 * router over the generated document), turns the query string into typed parameters and
 * renders results with the operation's success status. No behaviour lives here.
 */
import type { Context } from 'koa';
import { OpenAPIRouter, type Document } from 'openapi-backend';
import { openapiDocument } from '../generated/openapi-document.js';
import { operationTable } from '../generated/operations.js';
import { invoke, operationSpec } from '../operations/dispatch.js';
import type { OperationContext } from '../operations/types.js';
import { ApiError, notFound } from './errors.js';
import { readJsonBody } from './body.js';

export const API_ROOT = '/api/v1';

const router = new OpenAPIRouter({ definition: openapiDocument as unknown as Document, apiRoot: API_ROOT });

// Route templates as regular expressions, to answer 405 with the methods a path does have.
// A literal route (/items/query) wins over a template that would also match it (/items/{id}).
const routes = [...new Set(operationTable.map((op) => op.path))]
  .map((template) => ({
    literal: !template.includes('{'),
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    methods: operationTable.filter((op) => op.path === template).map((op) => op.method),
  }))
  .sort((a, b) => Number(b.literal) - Number(a.literal));

/** The methods served on a path below /api/v1, or null for an unknown path. */
export function allowedMethods(path: string): string[] | null {
  const route = routes.find((r) => r.pattern.test(path));
  return route ? route.methods : null;
}

export interface RestOptions {
  bodyLimitBytes: number;
  validateResponses: boolean;
  operationContext(ctx: Context): OperationContext;
}

/** Handles one request below /api/v1 (after the guard). */
export async function handleRest(ctx: Context, options: RestOptions): Promise<void> {
  const path = ctx.path.slice(API_ROOT.length) || '/';
  const methods = allowedMethods(path);
  // GET /items/query is not get_item with id "query": that path exists, without GET.
  const operation = methods && !methods.includes(ctx.method) ? undefined : router.matchOperation({ method: ctx.method, path: ctx.path, headers: {}, query: {} });
  if (!operation) {
    if (methods) {
      throw new ApiError('methodNotAllowed', `${ctx.method} is not supported on ${ctx.path}; use ${methods.join(', ')}.`, { headers: { Allow: methods.join(', ') } });
    }
    throw notFound(`No route ${ctx.method} ${ctx.path}; the OpenAPI document at ${API_ROOT}/openapi.json lists every route.`);
  }
  const spec = operationSpec(operation.operationId!)!;
  const parsed = router.parseRequest({ method: ctx.method, path: ctx.path, headers: {}, query: {} }, operation);
  const params: Record<string, unknown> = { ...queryParams(ctx, spec.params), ...(parsed.params as Record<string, string>) };
  const body = await readJsonBody(ctx, options.bodyLimitBytes);
  const output = await invoke(options.operationContext(ctx), spec.operationId, { params, body }, { validateOutput: options.validateResponses });
  ctx.status = spec.successStatus;
  ctx.body = output;
}

/** Query parameters by name; arrays arrive comma-separated (or repeated) and are split here. */
function queryParams(ctx: Context, declared: { name: string; in: string }[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const arrays = arrayParamNames(declared);
  for (const [name, value] of Object.entries(ctx.query)) {
    if (value === undefined) continue;
    if (arrays.has(name)) {
      const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
      out[name] = parts;
    } else {
      out[name] = Array.isArray(value) ? value[value.length - 1] : value;
    }
  }
  return out;
}

const arrayNamesCache = new WeakMap<object, Set<string>>();
function arrayParamNames(declared: { name: string; in: string }[]): Set<string> {
  let names = arrayNamesCache.get(declared);
  if (!names) {
    const op = operationTable.find((o) => o.params === declared);
    names = new Set(
      declared.filter((p) => p.in === 'query' && op && (op.paramsSchema.properties?.[p.name] as { type?: string } | undefined)?.type === 'array').map((p) => p.name),
    );
    arrayNamesCache.set(declared, names);
  }
  return names;
}
