/**
 * tools/call on 2026-07-28: the call itself (`tools.ts`), and what this revision adds around
 * it for a client that declares it can take it: a confirmation asked of the person by
 * elicitation (`elicitation.ts`), and a task handle for work that runs on past the answer
 * (`tasks.ts`).
 */
import { CallToolRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OperationContext } from '../core/context.js';
import { answerTo, canElicit, confirmationRequest, declined, inputResponsesProblem } from './elicitation.js';
import { takesTasks, taskFor } from './tasks.js';
import { callTool, confirmationIn } from './tools.js';
import type { ModernRequest } from './versions.js';

export type ModernOutcome =
  | { result: CallToolResult & Record<string, unknown>; resultType?: string }
  | { error: { code: number; message: string; data?: unknown } };

const INVALID_PARAMS = -32602;
/** Confirmations one call may ask in turn (each operation asks one; a retry may meet another). */
const MAX_CONFIRMATIONS = 3;

/** One 2026-07-28 tools/call. */
export async function callToolModern(opContext: OperationContext, request: ModernRequest, validateResponses: boolean): Promise<ModernOutcome> {
  const parsed = CallToolRequestSchema.safeParse({ method: request.method, params: request.params });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { error: { code: INVALID_PARAMS, message: `Invalid params for tools/call: ${issue.path.join('.') || 'params'}: ${issue.message}` } };
  }
  const { inputResponses, requestState } = request.params;
  const problem = inputResponsesProblem(inputResponses);
  if (problem) return { error: { code: INVALID_PARAMS, message: problem } };
  const { name, arguments: args = {} } = parsed.data.params;
  const outcome = await confirmedCall(opContext, name, args, validateResponses, {
    elicit: canElicit(request.clientCapabilities),
    inputResponses: inputResponses as Record<string, unknown> | undefined,
    requestState,
  });
  if (!('result' in outcome) || outcome.resultType || !takesTasks(request.clientCapabilities)) return outcome;
  const task = await taskFor(opContext, name, outcome.result);
  return task ? { result: task as never, resultType: 'task' } : outcome;
}

/**
 * Runs the call; where its operation asks a confirmation, applies the person's answer from the
 * retry (yes: the call again with the field set), or asks them when the client can, or answers
 * what the operation answered.
 */
async function confirmedCall(
  opContext: OperationContext,
  name: string,
  args: Record<string, unknown>,
  validateResponses: boolean,
  retry: { elicit: boolean; inputResponses: Record<string, unknown> | undefined; requestState: unknown },
): Promise<ModernOutcome> {
  let confirmed = args;
  for (let round = 0; round < MAX_CONFIRMATIONS; round++) {
    const result = await callTool(opContext, name, confirmed, validateResponses);
    const confirmation = confirmationIn(result);
    if (!confirmation || confirmed[confirmation.field] === true) return { result };
    const answer = answerTo(confirmation, retry.inputResponses, retry.requestState);
    if (answer === 'yes') {
      confirmed = { ...confirmed, [confirmation.field]: true };
      continue;
    }
    if (answer === 'no' || answer === 'dismissed') return { result: declined(result, confirmation, answer) };
    if (!retry.elicit) return { result };
    return { result: confirmationRequest(confirmation) as never, resultType: 'input_required' };
  }
  return { result: await callTool(opContext, name, confirmed, validateResponses) };
}
