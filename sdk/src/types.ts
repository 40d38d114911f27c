/** Input and output types of each operation, derived from the generated OpenAPI types. */
import type { components, operations } from './generated/api.js';

/** An operation of the API (the `webhook_…` entries are the events it sends). */
export type OperationId = Exclude<keyof operations, `webhook_${string}`>;
export type ErrorBody = components['schemas']['Error'];

// [X] extends [never]: with exactOptionalPropertyTypes an absent part infers as never, which must read as {}.
type PathOf<O> = O extends { parameters: { path: infer P } } ? ([P] extends [never] ? object : P extends object ? P : object) : object;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? ([Q] extends [never] ? object : Q extends object ? Q : object) : object;
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } }
  ? [B] extends [never]
    ? object
    : B extends object
      ? B
      : object
  : object;
type SuccessOf<R> = R extends { 200: { content: { 'application/json': infer T } } }
  ? T
  : R extends { 201: { content: { 'application/json': infer T } } }
    ? T
    : R extends { 202: { content: { 'application/json': infer T } } }
      ? T
      : R extends { 200: { content: { 'text/csv': infer T } } }
        ? T
        : never;

/** An operation's input as one object: path and query parameters and body fields side by side (as MCP tools take them). */
export type Input<K extends OperationId> = PathOf<operations[K]> & QueryOf<operations[K]> & BodyOf<operations[K]>;
/** An operation's success body. */
export type Output<K extends OperationId> = SuccessOf<operations[K]['responses']>;

/** What a call returns when it does not throw: the data, or the API's error body, and the response. */
export type Result<T> = { data: T; error?: undefined; response: Response } | { data?: undefined; error: ErrorBody; response: Response };

/** Per-call options. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeout` (milliseconds) for this call. */
  timeout?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  headers?: Record<string, string>;
}
