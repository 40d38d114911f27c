/**
 * The MCP adapter at /mcp: Streamable HTTP, stateless (a fresh protocol server per HTTP
 * request, no session ids), so any number of server processes can answer any request. The
 * most common request, one plain tools/call, is answered without a protocol server (see
 * `plainToolCall`).
 * Tools come from the generated operation table and call the same operations as REST;
 * failures are `isError` results whose text tells the model how to fix the call.
 */
import type { Context } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tools } from '../generated/tools.js';
import type { ToolDefinition } from '../core/operation-spec.js';
import { invoke, operationSpec, parameterNames, takesBody } from '../operations/dispatch.js';
import type { OperationContext } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { readToolArguments } from './arguments.js';
import { EVENTS_CAPABILITY, registerEventMethods } from './events.js';
import { registerResources } from './resources.js';

const SERVER_INFO = { name: 'listkeeper', version: '0.1.0' };
/** The server's instructions to the model (sent once, at initialize). */
export const INSTRUCTIONS =
  "listkeeper keeps the person's lists and items. Start with get_context for an overview. " +
  'Tools that take objects or arrays also accept them as JSON strings.';

const toolByName = new Map<string, ToolDefinition>(tools.map((t) => [t.name, t]));

/**
 * One JSON Schema validator for every protocol server: left out, each server (one per request)
 * builds its own Ajv instance, which was most of what an MCP request cost beyond REST in the
 * profile (bench/out/flame-mcp-get_item.html). The SDK uses it only to check elicitation
 * answers, which listkeeper does not ask for.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

export interface McpOptions {
  validateResponses: boolean;
  operationContext(ctx: Context): OperationContext;
}

/** The tool a JSON-RPC `tools/call` message names, else the method (for metrics). */
export function toolCalled(body: unknown): string | undefined {
  const message = body as { method?: unknown; params?: { name?: unknown } } | null;
  if (!message || typeof message !== 'object' || typeof message.method !== 'string') return undefined;
  return message.method === 'tools/call' && typeof message.params?.name === 'string' && toolByName.has(message.params.name)
    ? message.params.name
    : message.method;
}

/** Handles one HTTP request to /mcp (after the guard). */
export async function handleMcp(ctx: Context, body: unknown, options: McpOptions): Promise<void> {
  if (Array.isArray(body)) {
    // One message a request: a batch would pass the rate limit as one request (and the current
    // protocol revision has no batches).
    ctx.status = 400;
    ctx.body = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'JSON-RPC batches are not accepted: send one message per request.' } };
    return;
  }
  const call = plainToolCall(ctx, body);
  if (call) {
    const result = await callTool(options.operationContext(ctx), call.name, call.arguments, options.validateResponses);
    // The answer as the SDK's transport writes it (JSON response mode): the JSON-RPC response, application/json.
    ctx.status = 200;
    ctx.body = responseJson(call.id, result);
    ctx.set('Content-Type', 'application/json');
    return;
  }
  const server = buildServer(options.operationContext(ctx), options.validateResponses);
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
  if (version !== '' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  const { jsonrpc, id, method, params, ...rest } = body;
  if (jsonrpc !== '2.0' || method !== 'tools/call' || Object.keys(rest).length > 0) return null;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return null;
  if (!isPlainObject(params) || typeof params.name !== 'string') return null;
  const { name, arguments: args, ...other } = params;
  if (Object.keys(other).length > 0 || !(args === undefined || isPlainObject(args))) return null;
  return { id, name: name as string, arguments: args ?? {} };
}

function buildServer(opContext: OperationContext, validateResponses: boolean): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false },
      prompts: { listChanged: false },
      completions: {},
      experimental: { events: EVENTS_CAPABILITY },
    },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(opContext, request.params.name, request.params.arguments ?? {}, validateResponses),
  );
  registerEventMethods(server, opContext);
  registerResources(server, opContext);
  return server;
}

/** The JSON of each result's structuredContent, made once for its text content. */
const outputJson = new WeakMap<CallToolResult, string>();

/**
 * The JSON-RPC response to a tools/call, as JSON.stringify({ result, jsonrpc, id }) writes it,
 * but with the structured content's JSON that callTool already made for the text: the
 * output is serialised once, not twice (a page of 50 items is most of the answer).
 */
function responseJson(id: string | number, result: CallToolResult): string | Buffer {
  const structured = outputJson.get(result);
  if (structured === undefined) return JSON.stringify({ result, jsonrpc: '2.0', id });
  const isError = result.isError ? ',"isError":true' : '';
  // Written part by part into one buffer, as UTF-8: joined into one string first, the answer (the
  // page twice) cost the server more CPU a list_items call (bench/README.md), in copying and collecting.
  const parts = [
    '{"result":{"content":',
    JSON.stringify(result.content),
    ',"structuredContent":',
    structured,
    `${isError}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
  ];
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  for (const part of parts) at += body.write(part, at);
  return body;
}

/** Runs one tool call; every refusal becomes an `isError` result, never a protocol error. */
export async function callTool(opContext: OperationContext, name: string, args: Record<string, unknown>, validateResponses: boolean): Promise<CallToolResult> {
  const tool = toolByName.get(name);
  if (!tool) return errorResult(`Unknown tool '${name}'; call tools/list for the tools listkeeper has.`);
  try {
    const input = readToolArguments(tool, args, parameterNames(name), takesBody(name));
    const output = (await invoke(opContext, name, input, { validateOutput: validateResponses })) as Record<string, unknown>;
    const outcome = batchOutcome(name, { ...input.params, ...(input.body as Record<string, unknown> | undefined) }, output);
    const text = JSON.stringify(output);
    const result: CallToolResult = {
      content: [{ type: 'text', text: outcome ? `${outcome.line}\n${text}` : text }],
      structuredContent: output,
      ...(outcome?.nothingWritten ? { isError: true } : {}),
    };
    outputJson.set(result, text);
    return result;
  } catch (err) {
    if (err instanceof ApiError) {
      const details = err.extra.details ? ` Details: ${JSON.stringify(err.extra.details)}` : '';
      return errorResult(`${err.message} (code: ${err.code})${details}`);
    }
    opContext.log.error({ err, tool: name }, 'tool call failed');
    return errorResult('listkeeper failed on this call with an internal error; it was logged. Try again, and report it if it persists.');
  }
}

/**
 * For a batch tool whose entries failed, a first line a model cannot miss: what failed and why,
 * and whether anything was written. A call where every entry failed wrote nothing: isError.
 */
function batchOutcome(name: string, args: Record<string, unknown>, output: Record<string, unknown>): { line: string; nothingWritten: boolean } | null {
  const batch = operationSpec(name)?.tool?.batch;
  if (!batch) return null;
  const failed = Array.isArray(output[batch.failed]) ? (output[batch.failed] as unknown[]) : [];
  if (failed.length === 0) return null;
  const entries = Array.isArray(args[batch.entries]) ? (args[batch.entries] as unknown[]).length : failed.length;
  const reasons = failed
    .slice(0, 5)
    .map((f) =>
      f && typeof f === 'object'
        ? `entry ${String((f as { index?: unknown }).index)}: ${String((f as { reason?: unknown }).reason)}`
        : `${String(f)}: not one of your live items`,
    )
    .join('; ');
  const more = failed.length > 5 ? `; and ${failed.length - 5} more under ${batch.failed}` : '';
  const nothingWritten = failed.length >= entries;
  const head = nothingWritten
    ? `Nothing was written: ${entries === 1 ? 'the one entry' : `all ${entries} entries`} failed. Fix ${entries === 1 ? 'it' : 'them'} and call ${name} again.`
    : `${failed.length} of ${entries} entries failed and were not written (the rest were): fix them and send only those again.`;
  return { line: `${head} ${reasons}${more}.`, nothingWritten };
}

/** Keys in the order the SDK's result schema writes them, so both ways of answering give the same bytes. */
function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
