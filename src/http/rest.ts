/**
 * The REST adapter: routes /api/v1 requests to operations by the generated operation table,
 * turns the query string into typed parameters and renders results with the operation's
 * success status. No behaviour lives here.
 */
import type { Context } from 'koa';
import { operationTable } from '../generated/operations.js';
import type { OperationSpec } from '../core/operation-spec.js';
import { invoke } from '../operations/dispatch.js';
import type { OperationContext } from '../core/context.js';
import { ApiError, invalid, notFound } from '../core/errors.js';
import { readJsonBody } from './body.js';

export const API_ROOT = '/api/v1';

interface Route {
  pattern: RegExp;
  /** Path parameter names, in the order of the pattern's groups. */
  names: string[];
  byMethod: Map<string, OperationSpec>;
}

/**
 * The one routing table: a route per path template of the operation table, literal paths
 * first, so /items/query is never get_item with id "query" (that path exists, without GET,
 * and answers 405).
 */
const routes: Route[] = [...new Set(operationTable.map((op) => op.path))]
  .sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')))
  .map((template) => ({
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '([^/]+)')}/?$`),
    names: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
    byMethod: new Map(operationTable.filter((op) => op.path === template).map((op) => [op.method, op])),
  }));

/** The operation and path parameters for a method and a path below /api/v1; `methods` alone when the path exists without that method. */
export function matchRoute(method: string, path: string): { spec: OperationSpec; params: Record<string, string> } | { methods: string[] } | null {
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    const spec = route.byMethod.get(method);
    if (!spec) return { methods: [...route.byMethod.keys()] };
    const params: Record<string, string> = {};
    route.names.forEach((name, i) => {
      params[name] = decodePathSegment(match[i + 1]!, name);
    });
    return { spec, params };
  }
  return null;
}

function decodePathSegment(segment: string, name: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalid(`Path parameter '${name}' is not valid percent-encoding: '${segment.slice(0, 80)}'.`, name);
  }
}

export interface RestOptions {
  bodyLimitBytes: number;
  validateResponses: boolean;
  operationContext(ctx: Context): OperationContext;
}

/** Handles one request below /api/v1 (after the guard). */
export async function handleRest(ctx: Context, options: RestOptions): Promise<void> {
  const route = matchRoute(ctx.method, ctx.path.slice(API_ROOT.length) || '/');
  if (!route) throw notFound(`No route ${ctx.method} ${ctx.path}; the OpenAPI document at ${API_ROOT}/openapi.json lists every route.`);
  if ('methods' in route) {
    throw new ApiError('methodNotAllowed', `${ctx.method} is not supported on ${ctx.path}; use ${route.methods.join(', ')}.`, {
      headers: { Allow: route.methods.join(', ') },
    });
  }
  const { spec } = route;
  ctx.state.operation = spec.operationId;
  const params: Record<string, unknown> = { ...queryParams(ctx, spec), ...route.params };
  const body = await readJsonBody(ctx, options.bodyLimitBytes);
  const output = await invoke(options.operationContext(ctx), spec.operationId, { params, body }, { validateOutput: options.validateResponses });
  ctx.status = spec.successStatus;
  // A text answer (export_list_csv) is sent as the text it is, under its media type.
  if (spec.successContentType !== 'application/json') ctx.type = `${spec.successContentType}; charset=utf-8`;
  ctx.body = output;
}

/** Query parameters by name; arrays arrive comma-separated (or repeated) and are split here. */
function queryParams(ctx: Context, spec: OperationSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const arrays = arrayParamNames(spec);
  for (const [name, value] of Object.entries(ctx.query)) {
    if (value === undefined) continue;
    if (arrays.has(name)) {
      // Empty parts are kept, so `ids=` or `ids=a,,b` is refused by the schema rather than read as fewer ids.
      out[name] = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).map((v) => v.trim());
    } else {
      out[name] = Array.isArray(value) ? value[value.length - 1] : value;
    }
  }
  return out;
}

const arrayNamesCache = new Map<string, Set<string>>();
function arrayParamNames(spec: OperationSpec): Set<string> {
  let names = arrayNamesCache.get(spec.operationId);
  if (!names) {
    const schemas = (spec.paramsSchema.properties ?? {}) as Record<string, { type?: string }>;
    names = new Set(spec.params.filter((p) => p.in === 'query' && schemas[p.name]?.type === 'array').map((p) => p.name));
    arrayNamesCache.set(spec.operationId, names);
  }
  return names;
}
