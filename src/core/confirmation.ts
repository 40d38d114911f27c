/**
 * A question an operation asks before it does something the caller has to confirm: a change
 * that would drop values (answered with a preview), deleting a list that still holds items or
 * overwriting whole bodies (answered with a refusal). The answer or refusal itself is what the
 * API always sends; the question rides beside it, unseen by REST, so that an adapter that can
 * ask the person (MCP elicitation) asks it in plain words and repeats the call with `field`
 * set to true when they say yes. The rule stays in the operation: the adapter only translates.
 */
export interface Confirmation {
  /** The input field that confirms, set to true on the repeated call. */
  field: string;
  /** The question for the person, in plain words: what will happen, and what is lost. */
  question: string;
}

const asked = new WeakMap<object, Confirmation>();

/** Marks an answer (an output or a thrown error) as asking for `confirmation`; returns it. */
export function askingConfirmation<T extends object>(answer: T, confirmation: Confirmation): T {
  asked.set(answer, confirmation);
  return answer;
}

/** The confirmation an answer asks for, if any. */
export function confirmationAsked(answer: unknown): Confirmation | undefined {
  return answer !== null && typeof answer === 'object' ? asked.get(answer) : undefined;
}
