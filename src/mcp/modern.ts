/**
 * The 2026-07-28 revision, served statelessly: no handshake, every request checked on its own
 * (`versions.ts`), answered as one JSON object whose result carries `resultType`, the server's
 * name in `_meta` and, where the revision makes it cacheable, `ttlMs` and `cacheScope`. The
 * methods are the same ones the protocol server registers for the older revisions.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/index#_meta
 */
import type { Context } from 'koa';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { OperationContext } from '../core/context.js';
import { cacheHints, discoverMethod, SERVER_INFO } from './discover.js';
import { eventMethods } from './events.js';
import type { McpMethod, MethodResult } from './methods.js';
import { resourceMethods } from './resources.js';
import { listToolsMethod, responseJson } from './tools.js';
import { callToolModern } from './tool-call.js';
import { taskMethods } from './tasks.js';
import { META, MODERN_ERROR, type JsonRpcId, type ModernRequest } from './versions.js';

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

export interface McpOptions {
  validateResponses: boolean;
  operationContext(ctx: Context): OperationContext;
}

/** What every 2026-07-28 result closes with. */
const RESULT_META = { [META.serverInfo]: SERVER_INFO };

/** Writes one JSON answer. */
export function answer(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  if (body === undefined) {
    ctx.body = '';
    return;
  }
  ctx.set('Content-Type', 'application/json');
  ctx.body = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
}

/** The methods one request can reach, over its caller's operation context and its capabilities. */
function methods(opContext: OperationContext, request: ModernRequest, toolsets: readonly string[] | undefined): Map<string, McpMethod> {
  const all = [
    discoverMethod,
    listToolsMethod(opContext, toolsets),
    ...resourceMethods(opContext),
    ...eventMethods(opContext),
    ...taskMethods(opContext, request.clientCapabilities),
  ];
  return new Map(all.map((m) => [m.name, m]));
}

/** The HTTP status of a method's JSON-RPC error: 400 where the revision says so, else 200. */
const STATUS_OF_ERROR: Record<number, number> = { [MODERN_ERROR.missingClientCapability]: 400 };

/** Serves one checked 2026-07-28 message. */
export async function handleModern(ctx: Context, request: ModernRequest, options: McpOptions, toolsets?: readonly string[]): Promise<void> {
  const accept = ctx.get('accept');
  if (accept !== '' && !/application\/json|application\/\*|\*\/\*/.test(accept))
    return answer(ctx, 406, errorBody(request.id ?? null, -32600, 'This server answers application/json: accept it (and text/event-stream) in Accept.'));
  if (ctx.is('application/json') !== 'application/json')
    return answer(ctx, 415, errorBody(request.id ?? null, -32600, 'Send the message as application/json.'));
  // 2026-07-28 defines no notifications from client to server over HTTP; any is taken and dropped.
  if (request.id === undefined) return answer(ctx, 202, undefined);
  const id = request.id;
  const opContext = options.operationContext(ctx);
  if (request.method === 'tools/call') {
    const outcome = await callToolModern(opContext, request, options.validateResponses);
    if ('error' in outcome) return answer(ctx, 200, errorBody(id, outcome.error.code, outcome.error.message, outcome.error.data));
    return answer(ctx, 200, responseJson(id, outcome.result, { resultType: outcome.resultType ?? 'complete', _meta: RESULT_META }));
  }
  const handler = methods(opContext, request, toolsets).get(request.method);
  if (!handler) return answer(ctx, 404, errorBody(id, METHOD_NOT_FOUND, `Method not found: ${request.method}. server/discover lists what this server offers.`));
  const parsed = handler.schema.safeParse({ method: request.method, params: request.params });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return answer(ctx, 200, errorBody(id, INVALID_PARAMS, `Invalid params for ${request.method}: ${issue.path.join('.') || 'params'}: ${issue.message}`));
  }
  try {
    const result = await handler.handle(parsed.data as never);
    return answer(ctx, 200, { jsonrpc: '2.0', id, result: complete(request.method, result) });
  } catch (err) {
    if (err instanceof McpError) return answer(ctx, STATUS_OF_ERROR[err.code] ?? 200, errorBody(id, err.code, err.message, err.data));
    opContext.log.error({ err, method: request.method }, 'MCP request failed');
    return answer(ctx, 200, errorBody(id, INTERNAL_ERROR, 'listkeeper failed on this request with an internal error; it was logged.'));
  }
}

/** A complete result: the method's own fields, then its caching hints, `resultType` and `_meta`. */
export function complete(method: string, result: MethodResult): MethodResult {
  return { ...result, ...cacheHints(method), resultType: 'complete', _meta: { ...(result._meta as object | undefined), ...RESULT_META } };
}

function errorBody(id: JsonRpcId | null, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}
