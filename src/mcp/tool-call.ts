/**
 * tools/call on 2026-07-28: the call itself (`tools.ts`), and what this revision adds around
 * it for a client that declares it can take it.
 */
import { CallToolRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OperationContext } from '../core/context.js';
import { callTool } from './tools.js';
import type { ModernRequest } from './versions.js';

export type ModernOutcome =
  | { result: CallToolResult & Record<string, unknown>; resultType?: string }
  | { error: { code: number; message: string; data?: unknown } };

const INVALID_PARAMS = -32602;

/** One 2026-07-28 tools/call. */
export async function callToolModern(opContext: OperationContext, request: ModernRequest, validateResponses: boolean): Promise<ModernOutcome> {
  const parsed = CallToolRequestSchema.safeParse({ method: request.method, params: request.params });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { error: { code: INVALID_PARAMS, message: `Invalid params for tools/call: ${issue.path.join('.') || 'params'}: ${issue.message}` } };
  }
  const { name, arguments: args = {} } = parsed.data.params;
  return { result: await callTool(opContext, name, args, validateResponses) };
}
