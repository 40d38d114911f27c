/**
 * Errors of the throwing style (`createClient({ throwOnError: true })`): one class per error
 * code of the API, all `ListkeeperError`s carrying the status, the code, the sentence and the
 * request id to quote when reporting a problem.
 */
import type { errorCodes } from './generated/operations.js';
import type { ErrorBody } from './types.js';

export type ErrorCode = (typeof errorCodes)[number];

export class ListkeeperError extends Error {
  readonly status: number;
  readonly code: ErrorCode | 'connection';
  /** The field the API named, when it named one. */
  readonly field: string | undefined;
  readonly requestId: string | undefined;
  readonly response: Response | undefined;
  constructor(message: string, init: { status: number; code: ErrorCode | 'connection'; field?: string | undefined; response?: Response | undefined }) {
    super(message);
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.response = init.response;
    this.requestId = init.response?.headers.get('x-request-id') ?? undefined;
  }
}

/** 400: the call does not match the schema; the message names the field. */
export class InvalidError extends ListkeeperError {}
/** 401: the token is missing, unknown, expired or revoked. */
export class UnauthorizedError extends ListkeeperError {}
/** 403: beyond the connection's grant; `scope` is what to ask the person for (WWW-Authenticate). */
export class InsufficientScopeError extends ListkeeperError {
  readonly scope: string | undefined;
  constructor(message: string, init: ConstructorParameters<typeof ListkeeperError>[1]) {
    super(message, init);
    const header = init.response?.headers.get('www-authenticate') ?? '';
    this.scope = /scope="([^"]*)"/.exec(header)?.[1];
  }
}
/** 404: no such item or list (or one of another account). */
export class NotFoundError extends ListkeeperError {}
/** 405: the path exists without this method. */
export class MethodNotAllowedError extends ListkeeperError {}
/** 409: well formed, but not allowed in the workspace's current state. */
export class ToolError extends ListkeeperError {}
/** 429: over the rate limit; `retryAfter` says in how many seconds to try again. */
export class RateLimitedError extends ListkeeperError {
  readonly retryAfter: number | undefined;
  constructor(message: string, init: ConstructorParameters<typeof ListkeeperError>[1]) {
    super(message, init);
    const header = init.response?.headers.get('retry-after');
    this.retryAfter = header ? Number(header) : undefined;
  }
}
/** The service could not be reached, or did not answer within the timeout. */
export class ConnectionError extends ListkeeperError {}

const classes: Record<ErrorCode, typeof ListkeeperError> = {
  invalid: InvalidError,
  unauthorized: UnauthorizedError,
  insufficientScope: InsufficientScopeError,
  notFound: NotFoundError,
  methodNotAllowed: MethodNotAllowedError,
  rateLimited: RateLimitedError,
  toolError: ToolError,
};

/** The error class instance for an API error body. */
export function errorFor(body: ErrorBody, response: Response): ListkeeperError {
  const Class = classes[body.code as ErrorCode] ?? ListkeeperError;
  return new Class(body.error, { status: response.status, code: body.code as ErrorCode, field: (body as { field?: string }).field, response });
}
