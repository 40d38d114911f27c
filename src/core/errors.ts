/**
 * The one error type of the service. Every refusal carries an HTTP status, a `code` from the
 * spec's table and one sentence that tells the caller how to fix the call; REST renders it
 * as `{error, code}`, MCP as an `isError` tool result.
 * @see openapi/openapi.yaml components/schemas/Error
 */
export type ErrorCode = 'invalid' | 'unauthorized' | 'notFound' | 'methodNotAllowed' | 'rateLimited' | 'toolError';

const STATUS: Record<ErrorCode, number> = {
  invalid: 400,
  unauthorized: 401,
  notFound: 404,
  methodNotAllowed: 405,
  rateLimited: 429,
  toolError: 409,
};

export class ApiError extends Error {
  readonly status: number;
  readonly expose = true;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { field?: string; details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = STATUS[code];
  }

  /** The `{error, code}` body of the spec. */
  toBody(): { error: string; code: ErrorCode; field?: string; details?: Record<string, unknown> } {
    return {
      error: this.message,
      code: this.code,
      ...(this.extra.field ? { field: this.extra.field } : {}),
      ...(this.extra.details ? { details: this.extra.details } : {}),
    };
  }
}

export const invalid = (message: string, field?: string) => new ApiError('invalid', message, field ? { field } : {});
export const notFound = (message: string) => new ApiError('notFound', message);
export const toolError = (message: string, details?: Record<string, unknown>) => new ApiError('toolError', message, details ? { details } : {});
export const unauthorized = (message: string) => new ApiError('unauthorized', message);

/** Quotes a received value for an error sentence, cut short so a huge input stays readable. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? String(value));
  } catch {
    // Too deep (or cyclic) to print: the sentence still says what was received.
    text = Array.isArray(value) ? '[a deeply nested array]' : `(a deeply nested ${typeof value})`;
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
