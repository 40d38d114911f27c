/**
 * The client: openapi-fetch's path-style calls (`lk.GET('/lists')`) and resource methods
 * generated from the operation table (`lk.lists.list()`, `lk.items.create({...})`), over one
 * transport (token, timeout, retries). Paged reads also have an `…All` method that pages by
 * itself: `for await (const item of lk.items.queryAll({ listId }))`.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/api.js';
import { operations, type OperationOf, type PagedItems, type PagedMethod } from './generated/operations.js';
import { ConnectionError, errorFor } from './errors.js';
import { createTransport, type TokenSource } from './transport.js';
import type { ErrorBody, Input, Output, RequestOptions, Result } from './types.js';
import { isVerification, verifyWebhook } from './webhooks.js';

export interface ListkeeperOptions {
  /** The service's address, e.g. `http://127.0.0.1:8080` (the `/api/v1` root is added). */
  baseUrl: string;
  /** An API key (`lk_…`), an OAuth access token, or a function that returns one (asked before each request, e.g. to refresh). */
  token: TokenSource;
  /** Retries after the first attempt, for requests safe to repeat and 429s (default 2). */
  maxRetries?: number;
  /** Milliseconds one attempt may take, answer included (default 60000). */
  timeout?: number;
  /** Throw a `ListkeeperError` subclass on an API error instead of returning `{ error }`; resource methods then return the data. */
  throwOnError?: boolean;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

type Method = keyof OperationOf;
type ResourceOf<M> = M extends `${infer R}.${string}` ? R : never;
type ActionOf<M, R extends string> = M extends `${R}.${infer A}` ? A : never;
/** An entry of a page: the element type of the answer's field that holds the page (`items`, `runs`, `messages`). */
type EntryOf<T, Field extends string> = T extends { [F in Field]: (infer I)[] } ? I : never;

type Call<K extends keyof OperationOf, Throw extends boolean> = (
  input?: Input<OperationOf[K]>,
  options?: RequestOptions,
) => Promise<Throw extends true ? Output<OperationOf[K]> : Result<Output<OperationOf[K]>>>;
type PageAll<K extends PagedMethod> = (
  input?: Input<OperationOf[K]>,
  options?: RequestOptions,
) => AsyncIterable<EntryOf<Output<OperationOf[K]>, PagedItems[K]>>;

/** `lk.<resource>.<action>(input)`, and `lk.<resource>.<action>All(input)` for paged reads. */
export type Resources<Throw extends boolean> = {
  [R in ResourceOf<Method>]: { [A in ActionOf<Method, R>]: Call<`${R}.${A}` & Method, Throw> } & {
    [A in ActionOf<Method, R> as `${R}.${A}` extends PagedMethod ? `${A}All` : never]: PageAll<`${R}.${A}` & PagedMethod>;
  };
};

/** Receiving webhooks on the client too: `lk.webhooks.verify(body, headers, secret)` is `verifyWebhook`. */
export interface WebhookHelpers {
  verify: typeof verifyWebhook;
  isVerification: typeof isVerification;
}

export type ListkeeperClient<Throw extends boolean = false> = Client<paths> & Resources<Throw> & { webhooks: WebhookHelpers };

type Operation = (typeof operations)[number];

/** Creates a client. Array query parameters are sent comma-separated, as the API expects. */
export function createClient<Throw extends boolean = false>(options: ListkeeperOptions & { throwOnError?: Throw }): ListkeeperClient<Throw> {
  const send = createTransport({ token: options.token, maxRetries: options.maxRetries, timeout: options.timeout, fetch: options.fetch });
  const raw = createFetchClient<paths>({
    baseUrl: `${options.baseUrl.replace(/\/+$/, '')}/api/v1`,
    ...(options.headers ? { headers: options.headers } : {}),
    querySerializer: { array: { style: 'form', explode: false } },
    fetch: (request: Request) => send(request),
  });

  async function call(op: Operation, input: Record<string, unknown> = {}, callOptions: RequestOptions = {}): Promise<unknown> {
    const path: Record<string, unknown> = {};
    const query: Record<string, unknown> = {};
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      if ((op.pathParams as readonly string[]).includes(key)) path[key] = value;
      else if ((op.queryParams as readonly string[]).includes(key)) query[key] = value;
      else body[key] = value;
    }
    let result: { data?: unknown; error?: unknown; response: Response };
    try {
      result = await raw.request(
        op.method.toLowerCase() as 'get',
        op.path as '/lists',
        {
          params: { path, query },
          ...(op.hasBody ? { body: body as never } : {}),
          parseAs: op.parseAs,
          ...(callOptions.signal ? { signal: callOptions.signal } : {}),
          ...(callOptions.headers ? { headers: callOptions.headers } : {}),
          fetch: (request: Request) => send(request, { maxRetries: callOptions.maxRetries, timeout: callOptions.timeout }),
        } as never,
      );
    } catch (err) {
      if (!options.throwOnError) throw err;
      throw new ConnectionError(`listkeeper did not answer ${op.method} ${op.path}: ${err instanceof Error ? err.message : String(err)}`, {
        status: 0,
        code: 'connection',
      });
    }
    if (!options.throwOnError) return result;
    if (result.error) throw errorFor(result.error as ErrorBody, result.response);
    return result.data;
  }

  /**
   * Pages through a paged read: the entries of every page, in order, until the API says there
   * are no more. The next page is asked for in one of three ways (x-sdk.pagination): the
   * answer's cursor (`cursorParam` ← `nextCursor`), an offset past what was read (`offsetParam`),
   * or a field of the last entry (`sinceParam` ← `sinceFrom`, e.g. a chat's `createdAt`).
   */
  async function* pageAll(op: Operation, input: Record<string, unknown> = {}, callOptions: RequestOptions = {}): AsyncGenerator<unknown> {
    const paging = op.pagination as {
      cursorParam?: string;
      nextCursor?: string;
      offsetParam?: string;
      sinceParam?: string;
      sinceFrom?: string;
      hasMore: string;
      items: string;
    };
    const next = { ...input };
    for (;;) {
      const result = await call(op, next, callOptions);
      let data: Record<string, unknown>;
      if (options.throwOnError) data = result as Record<string, unknown>;
      else {
        const r = result as { data?: Record<string, unknown>; error?: ErrorBody; response: Response };
        if (r.error) throw errorFor(r.error, r.response);
        data = r.data!;
      }
      const items = (data[paging.items] as unknown[]) ?? [];
      yield* items;
      if (!data[paging.hasMore]) return;
      if (items.length === 0) return;
      if (paging.cursorParam && paging.nextCursor) next[paging.cursorParam] = data[paging.nextCursor];
      else if (paging.offsetParam) next[paging.offsetParam] = Number(next[paging.offsetParam] ?? 0) + items.length;
      else if (paging.sinceParam && paging.sinceFrom) next[paging.sinceParam] = (items.at(-1) as Record<string, unknown>)[paging.sinceFrom];
    }
  }

  const resources: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const [resource, action] = op.sdkMethod.split('.') as [string, string];
    const group = (resources[resource] ??= {});
    group[action] = (input?: Record<string, unknown>, callOptions?: RequestOptions) => call(op, input, callOptions);
    if (op.pagination) group[`${action}All`] = (input?: Record<string, unknown>, callOptions?: RequestOptions) => pageAll(op, input, callOptions);
  }
  const webhooks: WebhookHelpers = { verify: verifyWebhook, isVerification };
  return Object.assign(raw, resources, { webhooks }) as unknown as ListkeeperClient<Throw>;
}
