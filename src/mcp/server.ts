/**
 * The MCP adapter at /mcp: Streamable HTTP, stateless (a fresh protocol server per HTTP
 * request, no session ids), so any number of server processes can answer any request.
 * Tools come from the generated operation table and call the same operations as REST;
 * failures are `isError` results whose text tells the model how to fix the call.
 */
import type { Context } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tools } from '../generated/tools.js';
import type { ToolDefinition } from '../core/operation-spec.js';
import { invoke, parameterNames, takesBody } from '../operations/dispatch.js';
import type { OperationContext } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { readToolArguments } from './arguments.js';
import { EVENTS_CAPABILITY, registerEventMethods } from './events.js';

const SERVER_INFO = { name: 'listkeeper', version: '0.1.0' };
const INSTRUCTIONS =
  "listkeeper keeps the person's lists and items. Start with get_context for an overview. " +
  'Tools that take objects or arrays also accept them as JSON strings.';

const toolByName = new Map<string, ToolDefinition>(tools.map((t) => [t.name, t]));

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

function buildServer(opContext: OperationContext, validateResponses: boolean): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, experimental: { events: EVENTS_CAPABILITY } },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools as never }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(opContext, request.params.name, request.params.arguments ?? {}, validateResponses),
  );
  registerEventMethods(server, opContext);
  return server;
}

/** Runs one tool call; every refusal becomes an `isError` result, never a protocol error. */
export async function callTool(opContext: OperationContext, name: string, args: Record<string, unknown>, validateResponses: boolean): Promise<CallToolResult> {
  const tool = toolByName.get(name);
  if (!tool) return errorResult(`Unknown tool '${name}'; call tools/list for the tools listkeeper has.`);
  try {
    const input = readToolArguments(tool, args, parameterNames(name), takesBody(name));
    const output = (await invoke(opContext, name, input, { validateOutput: validateResponses })) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
  } catch (err) {
    if (err instanceof ApiError) {
      const details = err.extra.details ? ` Details: ${JSON.stringify(err.extra.details)}` : '';
      return errorResult(`${err.message} (code: ${err.code})${details}`);
    }
    opContext.log.error({ err, tool: name }, 'tool call failed');
    return errorResult('listkeeper failed on this call with an internal error; it was logged. Try again, and report it if it persists.');
  }
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
