/**
 * The MCP adapter at /mcp: Streamable HTTP, stateless, so any number of server processes can
 * answer any request. Each request is served in the revision it speaks (`versions.ts`): a
 * 2026-07-28 request by `modern.ts`, with no handshake; an initialize-based one by a fresh
 * protocol server of the SDK per HTTP request, with no session ids. The most common request
 * of those, one plain tools/call, is answered without a protocol server (see `plainToolCall`).
 * Tools come from the generated operation table and call the same operations as REST;
 * failures are `isError` results whose text tells the model how to fix the call.
 */
import type { Context } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { OperationContext } from '../core/context.js';
import { eventMethods } from './events.js';
import { resourceMethods } from './resources.js';
import { registerMethods } from './methods.js';
import { INSTRUCTIONS, LEGACY_CAPABILITIES, SERVER_INFO } from './discover.js';
import { callTool, callToolMethod, listToolsMethod, responseJson, toolByName, TOOLSETS } from './tools.js';
import { grantRefusal } from '../operations/dispatch.js';
import { ApiError } from '../core/errors.js';
import { classify, LEGACY_VERSIONS } from './versions.js';
import { answer, handleModern, type McpOptions } from './modern.js';

export { INSTRUCTIONS } from './discover.js';

/**
 * One JSON Schema validator for every protocol server: left out, each server (one per request)
 * builds its own Ajv instance, which was most of what an MCP request cost beyond REST in the
 * profile (bench/out/flame-mcp-get_item.html). The SDK uses it only to check elicitation
 * answers, which listkeeper does not ask for.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

export type { McpOptions } from './modern.js';

/** The tool a JSON-RPC `tools/call` message names, else the method (for metrics). */
export function toolCalled(body: unknown): string | undefined {
  const message = body as { method?: unknown; params?: { name?: unknown } } | null;
  if (!message || typeof message !== 'object' || typeof message.method !== 'string') return undefined;
  return message.method === 'tools/call' && typeof message.params?.name === 'string' && toolByName.has(message.params.name)
    ? message.params.name
    : message.method;
}

/** The toolsets asked for by `?toolsets=` (comma-separated), or undefined for every tool. */
function toolsetsOf(ctx: Context): string[] | undefined {
  const raw = ctx.query.toolsets;
  if (raw === undefined) return undefined;
  return (Array.isArray(raw) ? raw.join(',') : raw)
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/**
 * Handles one HTTP request to /mcp (after the guard). A call beyond the connection's grant is
 * answered at the HTTP level, 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="…"`, so a client can ask the person for more (step-up) and call again.
 */
export async function handleMcp(ctx: Context, body: unknown, options: McpOptions): Promise<void> {
  const toolsets = toolsetsOf(ctx);
  const unknown = toolsets?.filter((t) => !TOOLSETS.includes(t)) ?? [];
  if (unknown.length > 0) {
    const message = `Unknown toolset ${unknown.map((t) => `'${t}'`).join(', ')} in ?toolsets=; valid: ${TOOLSETS.join(', ')}.`;
    return answer(ctx, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message } });
  }
  const opContext = options.operationContext(ctx);
  const named = toolCalled(body);
  const refusal = named && named !== 'tools/call' ? grantRefusal(opContext.principal, named, opContext.config.baseUrl) : null;
  try {
    if (refusal) throw refusal;
    await serveMcp(ctx, body, options, toolsets);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'insufficientScope') throw err;
    for (const [name, value] of Object.entries(err.extra.headers ?? {})) ctx.set(name, value);
    answer(ctx, 403, err.toBody());
  }
}

async function serveMcp(ctx: Context, body: unknown, options: McpOptions, toolsets: string[] | undefined): Promise<void> {
  if (Array.isArray(body)) {
    // One message a request: a batch would pass the rate limit as one request (and the current
    // protocol revision has no batches).
    ctx.status = 400;
    ctx.body = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'JSON-RPC batches are not accepted: send one message per request.' } };
    return;
  }
  const era = classify(ctx, body);
  if (era.era === 'refused') return answer(ctx, era.refusal.status, { jsonrpc: '2.0', id: era.refusal.id, error: era.refusal.error });
  if (era.era === 'modern') return handleModern(ctx, era.request, options, toolsets);
  const call = plainToolCall(ctx, body);
  if (call) {
    const result = await callTool(options.operationContext(ctx), call.name, call.arguments, options.validateResponses);
    // The answer as the SDK's transport writes it (JSON response mode): the JSON-RPC response, application/json.
    ctx.status = 200;
    ctx.body = responseJson(call.id, result);
    ctx.set('Content-Type', 'application/json');
    return;
  }
  const server = buildServer(options.operationContext(ctx), options.validateResponses, toolsets);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  ctx.respond = false;
  ctx.res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(ctx.req, ctx.res, body);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A POST of one tools/call request that the SDK's transport would take as it is: the Accept,
 * Content-Type and MCP-Protocol-Version headers it requires, a JSON-RPC request with an id,
 * a tool name, plain arguments and nothing else (no `_meta`, no task). Such a call is
 * answered by `callTool` directly, as the protocol server would answer it: building that
 * server and its transport per request made an MCP get_item cost far more than a REST one
 * (bench/README.md). Anything else (initialize, tools/list, resources, notifications, a
 * request with `_meta`, a malformed one) goes to the SDK, which answers or refuses it.
 */
function plainToolCall(ctx: Context, body: unknown): { id: string | number; name: string; arguments: Record<string, unknown> } | null {
  if (ctx.method !== 'POST' || !isPlainObject(body)) return null;
  const accept = ctx.get('accept');
  if (!accept.includes('application/json') || !accept.includes('text/event-stream') || ctx.is('application/json') !== 'application/json') return null;
  const version = ctx.get('mcp-protocol-version');
  if (version !== '' && !LEGACY_VERSIONS.includes(version)) return null;
  const { jsonrpc, id, method, params, ...rest } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || Object.keys(rest).length > 0) return null;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return null;
  if (!isPlainObject(params) || typeof params.name !== 'string') return null;
  const { name, arguments: args, ...other } = params;
  if (Object.keys(other).length > 0 || !(args === undefined || isPlainObject(args))) return null;
  return { id, name: name as string, arguments: args ?? {} };
}

function buildServer(opContext: OperationContext, validateResponses: boolean, toolsets: string[] | undefined): Server {
  const server = new Server(SERVER_INFO, { capabilities: LEGACY_CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator });
  registerMethods(server, [
    listToolsMethod(opContext, toolsets),
    callToolMethod(opContext, validateResponses),
    ...eventMethods(opContext),
    ...resourceMethods(opContext),
  ]);
  return server;
}
