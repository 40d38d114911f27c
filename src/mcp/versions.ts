/**
 * Which protocol revision a request to /mcp speaks, decided per request. The revisions up to
 * 2025-11-25 open with `initialize` and are served by the SDK's protocol server as before; a
 * request that carries the 2026-07-28 envelope (its protocol version and client capabilities
 * in `params._meta`), or names that revision in MCP-Protocol-Version, is served statelessly by
 * `modern.ts`, once its envelope and its standard headers (MCP-Protocol-Version, Mcp-Method,
 * Mcp-Name) have been checked here.
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#request-metadata
 */
import type { Context } from 'koa';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

/** The revisions served statelessly, newest first. */
export const MODERN_VERSIONS = ['2026-07-28'] as const;
/** The initialize-based revisions, newest first: every one the SDK's protocol server negotiates. */
export const LEGACY_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
/** Every revision served, newest first, as `server/discover` and UnsupportedProtocolVersion name them. */
export const ALL_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** The error codes 2026-07-28 defines (its reserved range, -32020 and up). */
export const MODERN_ERROR = { headerMismatch: -32020, missingClientCapability: -32021, unsupportedProtocolVersion: -32022 } as const;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

export type JsonRpcId = string | number;

/** A JSON-RPC error answer with its HTTP status. */
export interface Refusal {
  status: number;
  id: JsonRpcId | null;
  error: { code: number; message: string; data?: unknown };
}

/** A checked 2026-07-28 message: the request (or notification, without id) and its envelope. */
export interface ModernRequest {
  id: JsonRpcId | undefined;
  method: string;
  params: Record<string, unknown>;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo: { name: string; version: string } | undefined;
}

export interface ClientCapabilities {
  elicitation?: { form?: object; url?: object };
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

export type Era = { era: 'legacy' } | { era: 'modern'; request: ModernRequest } | { era: 'refused'; refusal: Refusal };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const isModern = (version: unknown): boolean => typeof version === 'string' && (MODERN_VERSIONS as readonly string[]).includes(version);

/**
 * The era of one POSTed message. A message claims 2026-07-28 by its envelope's version (unless
 * that names an initialize-based revision, which the SDK serves as before) or by a modern
 * MCP-Protocol-Version header; anything else is legacy and goes to the SDK unchanged.
 */
export function classify(ctx: Context, body: unknown): Era {
  if (!isObject(body)) return { era: 'legacy' };
  const params = isObject(body.params) ? body.params : undefined;
  const meta = isObject(params?._meta) ? params._meta : undefined;
  const claimed = meta?.[META.protocolVersion];
  const header = ctx.get('mcp-protocol-version');
  const claims = isModern(header) || (claimed !== undefined && !LEGACY_VERSIONS.includes(claimed as string));
  if (!claims) return { era: 'legacy' };
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
  const refuse = (status: number, code: number, message: string, data?: unknown): Era => ({
    era: 'refused',
    refusal: { status, id, error: { code, message, ...(data === undefined ? {} : { data }) } },
  });
  if (body.jsonrpc !== '2.0' || typeof body.method !== 'string' || (body.params !== undefined && !params))
    return refuse(400, INVALID_REQUEST, 'Not a JSON-RPC 2.0 request: it needs jsonrpc "2.0", a method and, if any, object params.');
  if (body.id !== undefined && id === null) return refuse(400, INVALID_REQUEST, 'The request id must be a string or an integer.');
  if (!meta || claimed === undefined || !isObject(meta[META.clientCapabilities]))
    return refuse(
      400,
      INVALID_PARAMS,
      `A 2026-07-28 request carries params._meta with '${META.protocolVersion}' and '${META.clientCapabilities}' (an object, {} for none).`,
    );
  // The headers first: a header that disagrees with the body is refused as such, whatever the version.
  const mismatch = headerMismatch(ctx, body.method, params ?? {}, String(claimed));
  if (mismatch) return refuse(400, MODERN_ERROR.headerMismatch, `Header mismatch: ${mismatch}`);
  if (typeof claimed !== 'string' || !isModern(claimed))
    return refuse(
      400,
      MODERN_ERROR.unsupportedProtocolVersion,
      `Unsupported protocol version ${JSON.stringify(claimed)}; this server speaks ${ALL_VERSIONS.join(', ')}.`,
      {
        supported: ALL_VERSIONS,
        requested: claimed,
      },
    );
  const info = meta[META.clientInfo];
  if (info !== undefined && !(isObject(info) && typeof info.name === 'string' && typeof info.version === 'string'))
    return refuse(400, INVALID_PARAMS, `'${META.clientInfo}' is an object with a name and a version.`);
  return {
    era: 'modern',
    request: {
      id: id ?? undefined,
      method: body.method,
      params: params ?? {},
      protocolVersion: claimed as string,
      clientCapabilities: meta[META.clientCapabilities] as ClientCapabilities,
      clientInfo: info as ModernRequest['clientInfo'],
    },
  };
}

/** The body field each method's Mcp-Name header mirrors (the tasks extension's methods name the task). */
const NAME_SOURCE: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** A header value as the client meant it: the Base64 sentinel form decoded. */
export function decodeHeaderValue(value: string): string {
  const encoded = BASE64_SENTINEL.exec(value);
  return encoded ? Buffer.from(encoded[1]!, 'base64').toString('utf8') : value;
}

/** What is wrong with the standard headers of a 2026-07-28 request, or null. */
function headerMismatch(ctx: Context, method: string, params: Record<string, unknown>, version: string): string | null {
  const sent = (name: string): string | null => (ctx.get(name) === '' && ctx.headers[name] === undefined ? null : ctx.get(name));
  const versionHeader = sent('mcp-protocol-version');
  if (versionHeader === null) return `the MCP-Protocol-Version header is missing; send '${version}', as in params._meta.`;
  if (versionHeader !== version) return `MCP-Protocol-Version '${versionHeader}' does not match '${version}' in params._meta.`;
  const methodHeader = sent('mcp-method');
  if (methodHeader === null) return `the Mcp-Method header is missing; send '${method}'.`;
  if (methodHeader !== method) return `Mcp-Method '${methodHeader}' does not match the body's method '${method}'.`;
  const source = NAME_SOURCE[method];
  if (!source) return null;
  const expected = params[source];
  const nameHeader = sent('mcp-name');
  if (nameHeader === null) return `the Mcp-Name header is missing; send the value of params.${source}.`;
  const name = decodeHeaderValue(nameHeader);
  if (typeof expected !== 'string' || name !== expected) return `Mcp-Name '${name}' does not match params.${source} ${JSON.stringify(expected ?? null)}.`;
  return null;
}
