/**
 * The tools: one per operation of the generated table, calling the same operations as REST.
 * A failure is an `isError` result whose text tells the model how to fix the call, never a
 * protocol error. `responseJson` writes a tools/call answer with the output serialised once.
 */
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { tools } from '../generated/tools.js';
import type { ToolDefinition } from '../core/operation-spec.js';
import { grantRefusal, invoke, operationSpec, parameterNames, takesBody } from '../operations/dispatch.js';
import type { OperationContext, Principal } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { confirmationAsked, type Confirmation } from '../core/confirmation.js';
import { readToolArguments } from './arguments.js';
import { method, type McpMethod } from './methods.js';

export const toolByName = new Map<string, ToolDefinition>(tools.map((t) => [t.name, t]));

/** Every toolset of the spec (x-toolset), in the table's order. */
export const TOOLSETS = [...new Set(tools.map((t) => operationSpec(t.name)!.toolset!))];

/**
 * The tools a connection sees: those its grant allows (dispatch's grantRefusal), and of them,
 * when the client asked for toolsets (`/mcp?toolsets=tasks,search`), those in the toolsets.
 * A read-only connection is not shown the writes it could not make, and pays for none.
 */
export function visibleTools(principal: Principal, toolsets: readonly string[] | undefined, baseUrl: string): ToolDefinition[] {
  if (!principal.grant && !toolsets) return tools as ToolDefinition[];
  return tools.filter(
    (t) => (!toolsets || toolsets.includes(operationSpec(t.name)!.toolset!)) && grantRefusal(principal, t.name, baseUrl) === null,
  ) as ToolDefinition[];
}

/** tools/list: the tools this connection sees, in the generated table's order (the same on every call). */
export function listToolsMethod(opContext: OperationContext, toolsets: readonly string[] | undefined): McpMethod {
  return method(ListToolsRequestSchema, async () => ({ tools: visibleTools(opContext.principal, toolsets, opContext.config.baseUrl) as never }));
}

/** tools/call as the initialize-based revisions answer it. */
export function callToolMethod(opContext: OperationContext, validateResponses: boolean): McpMethod {
  return method(CallToolRequestSchema, async (request) => {
    try {
      return await callTool(opContext, request.params.name, request.params.arguments ?? {}, validateResponses);
    } catch (err) {
      // Inside the SDK's protocol server the HTTP answer is the transport's: the refusal is the tool's result.
      if (err instanceof ApiError) return refusalResult(opContext, request.params.name, err);
      throw err;
    }
  });
}

/** The JSON of each result's structuredContent, made once for its text content. */
const outputJson = new WeakMap<CallToolResult, string>();

/**
 * The JSON-RPC response to a tools/call, as JSON.stringify({ result, jsonrpc, id }) writes it,
 * but with the structured content's JSON that callTool already made for the text: the
 * output is serialised once, not twice (a page of 50 items is most of the answer). `extra`
 * (resultType and `_meta` on 2026-07-28) closes the result.
 */
export function responseJson(id: string | number, result: CallToolResult, extra?: Record<string, unknown>): string | Buffer {
  const structured = outputJson.get(result);
  if (structured === undefined) return JSON.stringify({ result: { ...result, ...extra }, jsonrpc: '2.0', id });
  const isError = result.isError ? ',"isError":true' : '';
  const closing = extra ? `,${JSON.stringify(extra).slice(1, -1)}` : '';
  // Written part by part into one buffer, as UTF-8: joined into one string first, the answer (the
  // page twice) cost the server more CPU a list_items call (bench/README.md), in copying and collecting.
  const parts = [
    '{"result":{"content":',
    JSON.stringify(result.content),
    ',"structuredContent":',
    structured,
    `${isError}${closing}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
  ];
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  const body = Buffer.allocUnsafe(length);
  let at = 0;
  for (const part of parts) at += body.write(part, at);
  return body;
}

/** A tool result for an operation's output (the first line names failed batch entries). */
export function toolResult(name: string, input: Record<string, unknown>, output: Record<string, unknown>): CallToolResult {
  const outcome = batchOutcome(name, input, output);
  const text = JSON.stringify(output);
  const result: CallToolResult = {
    content: [{ type: 'text', text: outcome ? `${outcome.line}\n${text}` : text }],
    structuredContent: output,
    ...(outcome?.nothingWritten ? { isError: true } : {}),
  };
  outputJson.set(result, text);
  return result;
}

/** The confirmation each result's operation asked for (a preview, or a refusal for want of a flag). */
const confirmations = new WeakMap<CallToolResult, Confirmation>();

/** The confirmation a tool result asks for, if its operation asked one (core/confirmation.ts). */
export function confirmationIn(result: CallToolResult): Confirmation | undefined {
  return confirmations.get(result);
}

/** Runs one tool call; every refusal becomes an `isError` result, never a protocol error. */
export async function callTool(opContext: OperationContext, name: string, args: Record<string, unknown>, validateResponses: boolean): Promise<CallToolResult> {
  const tool = toolByName.get(name);
  if (!tool) return errorResult(`Unknown tool '${name}'; call tools/list for the tools listkeeper has.`);
  let answer: unknown;
  let result: CallToolResult;
  try {
    const input = readToolArguments(tool, args, parameterNames(name), takesBody(name));
    const output = (await invoke(opContext, name, input, { validateOutput: validateResponses })) as Record<string, unknown>;
    answer = output;
    result = toolResult(name, { ...input.params, ...(input.body as Record<string, unknown> | undefined) }, output);
  } catch (err) {
    // Beyond the grant: answered at the HTTP level (403 with the scope to ask for), so the client can step up.
    if (err instanceof ApiError && err.code === 'insufficientScope') throw err;
    answer = err;
    result = refusalResult(opContext, name, err);
  }
  const asked = confirmationAsked(answer);
  if (asked) confirmations.set(result, asked);
  return result;
}

/** An operation's refusal as a tool result; anything else is logged and answered generically. */
export function refusalResult(opContext: OperationContext, name: string, err: unknown): CallToolResult {
  if (err instanceof ApiError) {
    const details = err.extra.details ? ` Details: ${JSON.stringify(err.extra.details)}` : '';
    return errorResult(`${err.message} (code: ${err.code})${details}`);
  }
  opContext.log.error({ err, tool: name }, 'tool call failed');
  return errorResult('listkeeper failed on this call with an internal error; it was logged. Try again, and report it if it persists.');
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
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
