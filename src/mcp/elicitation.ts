/**
 * Confirmation by elicitation, on 2026-07-28 (multi round-trip requests). Where an operation
 * asks a confirmation (core/confirmation.ts: a preview that would drop values, a list deleted
 * with its items, whole bodies replaced) and the client declares form elicitation, the call
 * answers `input_required` with the operation's question in plain words; the client asks the
 * person and repeats the call with their answer, and a yes carries the call out with the
 * confirming field set. A client without elicitation gets the operation's own answer, as before.
 *
 * The retry names what it answers by the field; `requestState` is a digest of the question
 * asked, so a yes to a question the state of the workspace has since changed (three items
 * would lose values, now thirty) asks again instead of applying. It needs no signature:
 * changing it can only skip that check, and a client can always send the field itself.
 *
 * The revisions before 2026-07-28 are served statelessly with JSON answers, so the server
 * cannot send them an `elicitation/create` request mid-call and wait for the reply (the reply
 * is a new HTTP request that any process may receive): they keep the answer they always had.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 * @see docs/mcp-2026.md
 */
import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Confirmation } from '../core/confirmation.js';
import type { ClientCapabilities } from './versions.js';

/** What the person's answer to one confirmation was, as the retry carries it. */
export type Answer = 'yes' | 'no' | 'dismissed' | 'stale' | 'none';

/** True when the client takes form-mode elicitation (`elicitation: {}` means form). */
export function canElicit(capabilities: ClientCapabilities): boolean {
  const elicitation = capabilities.elicitation;
  if (!elicitation || typeof elicitation !== 'object') return false;
  return 'form' in elicitation || !('url' in elicitation);
}

/** The state that names the question asked: a digest of its words. */
function stateOf(confirmation: Confirmation): string {
  return createHash('sha256').update(`${confirmation.field}\n${confirmation.question}`).digest('base64url').slice(0, 22);
}

/** The interim result that asks the person. */
export function confirmationRequest(confirmation: Confirmation): Record<string, unknown> {
  return {
    inputRequests: {
      [confirmation.field]: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: confirmation.question,
          requestedSchema: {
            type: 'object',
            properties: {
              confirm: { type: 'boolean', title: 'Go ahead', description: 'Yes to do it; no to leave everything as it is.', default: false },
            },
            required: ['confirm'],
          },
        },
      },
    },
    requestState: stateOf(confirmation),
  };
}

/**
 * Reads the retry's answer to `confirmation`: `inputResponses` keyed by its field, and the
 * echoed `requestState` of the question it answers.
 */
export function answerTo(confirmation: Confirmation, inputResponses: Record<string, unknown> | undefined, requestState: unknown): Answer {
  const response = inputResponses?.[confirmation.field] as { action?: unknown; content?: { confirm?: unknown } } | undefined;
  if (!response) return 'none';
  if (requestState !== stateOf(confirmation)) return 'stale';
  if (response.action === 'cancel') return 'dismissed';
  return response.action === 'accept' && response.content?.confirm === true ? 'yes' : 'no';
}

/** What a malformed `inputResponses` is, or null when it is an object of elicitation answers. */
export function inputResponsesProblem(value: unknown): string | null {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'inputResponses is an object keyed by the inputRequests it answers.';
  for (const [key, response] of Object.entries(value)) {
    const action = (response as { action?: unknown } | null)?.action;
    if (typeof response !== 'object' || response === null || !['accept', 'decline', 'cancel'].includes(action as string))
      return `inputResponses.${key} is an elicitation answer: an object with action accept, decline or cancel.`;
  }
  return null;
}

/** The operation's own answer, led by a line saying the person said no and nothing was done. */
export function declined(result: CallToolResult, confirmation: Confirmation, answer: 'no' | 'dismissed'): CallToolResult {
  const line =
    answer === 'no'
      ? `The person said no to "${confirmation.question}" Nothing was changed; do not repeat the call unless they ask for it.`
      : `The person dismissed the question "${confirmation.question}" without answering. Nothing was changed.`;
  return { ...result, content: [{ type: 'text', text: line }, ...result.content] };
}
