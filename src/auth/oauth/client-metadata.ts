/**
 * Client ID Metadata Documents: an app names itself by an https URL as its `client_id`, and
 * the authorization server reads the app's metadata from that URL instead of a registration.
 * oidc-provider resolves such ids itself (its `clientIdMetadataDocument` feature: the
 * document's `client_id` must equal its URL, the redirect URI must be one it lists, a cache
 * with its own expiry); this module gives it the two things listkeeper adds:
 * - the fetch, through the outbound guard (core/outbound.ts: https, public addresses only,
 *   checked at connect time; a size and a time limit; no redirects);
 * - a negative cache: a document that could not be read, or was read and is not a valid one,
 *   is not fetched again for a while, so a bad or hostile id cannot make the server fetch on
 *   every request. An MCP client's document also has to name the app (`client_name`).
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization/client-registration#client-id-metadata-documents
 * @see docs/auth.md
 */
import type { IncomingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';
import { OutboundError, outboundRequest, type OutboundResponse } from '../../core/outbound.js';

/** Largest document read (oidc-provider's own limit for it). */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
/** How long a document may take (oidc-provider gives up after 2.5 s). */
const FETCH_TIMEOUT_MS = 2500;
/** A document that failed is not fetched again for this long. */
export const REFUSED_TTL_MS = 5 * 60_000;
/** A valid document is kept this long at least, and at most, whatever its Cache-Control says. */
export const CACHE_SECONDS = { min: 60, max: 3600 };

export interface ClientMetadataDocuments {
  /** oidc-provider's `fetch`: every request it makes goes through the outbound guard. */
  fetch(url: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** oidc-provider's `allowFetch`: false for an id whose document failed a short while ago. */
  allowFetch(ctx: unknown, clientId: string): Promise<boolean>;
  /** oidc-provider's `allowClient`: the document names the app. */
  allowClient(ctx: unknown, client: { clientName?: string }): Promise<boolean>;
  /** Why an id's document was refused lately, if it was. */
  refusal(clientId: string): string | undefined;
}

/** The fetcher and its negative cache, one per provider. */
export function clientMetadataDocuments(options: { allowPrivate: boolean; onRefused?: (clientId: string, reason: string) => void }): ClientMetadataDocuments {
  const refused = new LRUCache<string, string>({ max: 1000, ttl: REFUSED_TTL_MS });
  const refuse = (url: string, reason: string) => {
    refused.set(url, reason);
    options.onRefused?.(url, reason);
  };

  async function guardedFetch(url: string | URL | Request, _init?: RequestInit): Promise<Response> {
    const href = url instanceof Request ? url.url : String(url);
    let answer: OutboundResponse;
    try {
      answer = await outboundRequest(href, {
        method: 'GET',
        headers: { accept: 'application/json' },
        maxBytes: MAX_DOCUMENT_BYTES,
        timeoutMs: FETCH_TIMEOUT_MS,
        maxRedirects: 0,
        allowPrivate: options.allowPrivate,
      });
    } catch (err) {
      refuse(href, err instanceof OutboundError ? err.message : 'the request failed');
      throw err;
    }
    const problem = documentProblem(href, answer);
    if (problem) refuse(href, problem);
    const empty = answer.status === 204 || answer.status === 304 || answer.status < 200;
    return new Response(empty ? null : new Uint8Array(answer.body), { status: answer.status, headers: toHeaders(answer.headers) });
  }

  return {
    fetch: guardedFetch,
    allowFetch: async (_ctx, clientId) => !refused.has(clientId),
    allowClient: async (_ctx, client) => typeof client.clientName === 'string' && client.clientName.trim() !== '',
    refusal: (clientId) => refused.get(clientId),
  };
}

/** What is wrong with a fetched document, or null when it can be a client's. */
function documentProblem(url: string, answer: OutboundResponse): string | null {
  if (answer.status !== 200) return `it answered HTTP ${answer.status}`;
  let document: unknown;
  try {
    document = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return 'it is not JSON';
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return 'it is not a JSON object';
  const { client_id: id, client_name: name, redirect_uris: uris } = document as Record<string, unknown>;
  if (id !== url) return `its client_id ${JSON.stringify(id ?? null)} is not its own URL`;
  if (typeof name !== 'string' || name.trim() === '') return 'it names no client_name';
  if (!Array.isArray(uris) || uris.length === 0) return 'it lists no redirect_uris';
  return null;
}

function toHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}

/** True for a client id that is a metadata document's URL (https). */
export function isMetadataDocumentId(clientId: string): boolean {
  return /^https:\/\//i.test(clientId);
}

/** A name to show for a client: its own, else for a document's URL the host that serves it. */
export function clientLabel(clientId: string, clientName: string | null | undefined): string {
  if (clientName) return clientName;
  return isMetadataDocumentId(clientId) ? (URL.parse(clientId)?.host ?? clientId) : clientId;
}
