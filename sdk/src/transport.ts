/**
 * The fetch every call goes through: the token (a string, or a function asked before each
 * attempt, so a refreshed OAuth token is used), a timeout, and retries with exponential
 * backoff and jitter that honour Retry-After. Only requests that are safe to send again are
 * retried: reads and idempotent writes (the operation table says which), writes whose every
 * entry carries its key (create_items with `externalId`), and any request answered 429, which
 * the service refuses before doing anything.
 */
import { operations } from './generated/operations.js';

export type TokenSource = string | (() => string | Promise<string>);

export interface TransportOptions {
  token: TokenSource;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Milliseconds for one attempt, answer included (default 60000). */
  timeout?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

type Operation = (typeof operations)[number];

const routes = operations.map((op) => ({
  op,
  pattern: new RegExp(`/api/v1${op.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
}));

function operationOf(method: string, url: string): Operation | undefined {
  const { pathname } = new URL(url);
  return routes.find((r) => r.op.method === method && r.pattern.test(pathname))?.op;
}

/** Whether the request may be sent again after a failure that left its outcome unknown. */
function safeToRepeat(op: Operation | undefined, method: string, body: string | undefined): boolean {
  if (!op) return method === 'GET';
  if (op.idempotent) return true;
  const rule = op.retryWhenEvery as Record<string, string> | null;
  if (!rule || !body) return false;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return Object.entries(rule).every(([list, key]) => {
      const entries = parsed[list];
      return (
        Array.isArray(entries) &&
        entries.length > 0 &&
        entries.every((e) => e && typeof e === 'object' && typeof (e as Record<string, unknown>)[key] === 'string')
      );
    });
  } catch {
    return false;
  }
}

/** Seconds from a Retry-After header (seconds or an HTTP date), when there is one. */
function retryAfterMs(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** 0.5 s, 1 s, 2 s, ... (at most 8 s), each with up to 25% jitter either way. */
function backoffMs(attempt: number): number {
  return Math.min(8000, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
}

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/** A fetch with the token, the timeout and the retries; `overrides` are one call's own. */
export function createTransport(
  options: TransportOptions,
): (request: Request, overrides?: { maxRetries?: number | undefined; timeout?: number | undefined }) => Promise<Response> {
  const baseFetch = options.fetch ?? globalThis.fetch;
  return async function send(request, overrides = {}): Promise<Response> {
    const maxRetries = overrides.maxRetries ?? options.maxRetries ?? 2;
    const timeout = overrides.timeout ?? options.timeout ?? 60_000;
    const body = request.body ? await request.text() : undefined;
    const op = operationOf(request.method, request.url);
    const repeatable = safeToRepeat(op, request.method, body);
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(request.headers);
      const token = typeof options.token === 'function' ? await options.token() : options.token;
      headers.set('Authorization', `Bearer ${token}`);
      const signal = request.signal ? AbortSignal.any([request.signal, AbortSignal.timeout(timeout)]) : AbortSignal.timeout(timeout);
      let response: Response;
      try {
        response = await baseFetch(new Request(request.url, { method: request.method, headers, body: body ?? null, signal }));
      } catch (err) {
        if (request.signal?.aborted || !repeatable || attempt >= maxRetries) throw err;
        await sleep(backoffMs(attempt), request.signal);
        continue;
      }
      const retryable = response.status === 429 || ((response.status === 503 || response.status === 502 || response.status === 504) && repeatable);
      if (!retryable || attempt >= maxRetries) return response;
      const wait = retryAfterMs(response) ?? backoffMs(attempt);
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}
