/**
 * The one error type of the service. Every refusal carries an HTTP status, a `code` from the
 * spec's table and one sentence that tells the caller how to fix the call; REST renders it
 * as `{error, code}`, MCP as an `isError` tool result.
 * @see openapi/openapi.yaml components/schemas/Error
 */
export type ErrorCode = 'invalid' | 'unauthorized' | 'insufficientScope' | 'notFound' | 'methodNotAllowed' | 'rateLimited' | 'toolError';

const STATUS: Record<ErrorCode, number> = {
  invalid: 400,
  unauthorized: 401,
  insufficientScope: 403,
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

/** The `WWW-Authenticate` challenge of a bearer resource: where its metadata is, and what went wrong. */
export function bearerChallenge(baseUrl: string, params: { error?: string; scope?: string } = {}): string {
  const parts = [`Bearer resource_metadata="${baseUrl}/.well-known/oauth-protected-resource"`];
  if (params.error) parts.push(`error="${params.error}"`);
  if (params.scope) parts.push(`scope="${params.scope}"`);
  return parts.join(', ');
}

/** A call beyond the connection's grant (RFC 6750 insufficient_scope): `scope` is what to ask the person for. */
export function insufficientScope(message: string, scope: string, baseUrl: string): ApiError {
  return new ApiError('insufficientScope', message, {
    details: { scope },
    headers: { 'WWW-Authenticate': bearerChallenge(baseUrl, { error: 'insufficient_scope', scope }) },
  });
}

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
