/**
 * The transport guards in front of /mcp, before authentication: Host and Origin allow-lists
 * against DNS rebinding, CORS for the browser origins allowed, and the methods this
 * stateless server offers (POST only: no SSE stream to GET, no session to DELETE).
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
 * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#security--endpoint
 */
import type { Context, Middleware, Next } from 'koa';
import type { Config } from '../core/config.js';
import { ApiError } from '../core/errors.js';

/** Loopback names: a DNS-rebinding page can make a browser send its own host name, never these. */
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** What a browser may send and read on /mcp (Streamable HTTP headers of every revision, and the OAuth challenge). */
const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID, Mcp-Method, Mcp-Name';
const CORS_EXPOSE_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset';
const ALLOWED_METHODS = 'POST, OPTIONS';

interface HostRule {
  hostname: string;
  /** null: any port; otherwise the port as written in the Host header ('' for none). */
  port: string | null;
}

/** Splits a Host header value (or a `host[:port]` setting) into a lower-case host name and port. */
export function parseHost(value: string): { hostname: string; port: string } | null {
  try {
    const url = new URL(`http://${value.trim()}`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return null;
    return { hostname: url.hostname.toLowerCase(), port: url.port };
  } catch {
    return null;
  }
}

/** The Host allow-list: BASE_URL's host name, the loopback names, and MCP_ALLOWED_HOSTS. */
export function hostRules(config: Config): HostRule[] {
  const rules: HostRule[] = [{ hostname: new URL(config.baseUrl).hostname.toLowerCase(), port: null }];
  for (const name of LOOPBACK_HOSTNAMES) rules.push({ hostname: name, port: null });
  for (const entry of config.mcpAllowedHosts) {
    const parsed = parseHost(entry);
    if (!parsed) throw new Error(`MCP_ALLOWED_HOSTS entry '${entry}' is not a host name or host:port.`);
    rules.push({ hostname: parsed.hostname, port: /:\d+$/.test(entry.trim()) ? parsed.port : null });
  }
  return rules;
}

/** True for an origin served from this machine (any port), which DNS rebinding cannot forge. */
function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOSTNAMES.has(url.hostname);
  } catch {
    return false;
  }
}

/** Koa middleware for /mcp, in order: Host, Origin (+ CORS), method. */
export function mcpTransportGuards(config: Config): Middleware[] {
  const rules = hostRules(config);
  const origins = new Set([new URL(config.baseUrl).origin, new URL(config.webOrigin).origin, ...config.mcpAllowedOrigins]);

  async function guardHost(ctx: Context, next: Next): Promise<void> {
    const host = ctx.get('host');
    const parsed = host ? parseHost(host) : null;
    const allowed = parsed !== null && rules.some((r) => r.hostname === parsed.hostname && (r.port === null || r.port === parsed.port));
    if (!allowed) {
      forbid(
        ctx,
        `Host '${host}' is not served at /mcp (DNS rebinding protection). Call the service by the host of BASE_URL or a loopback address, or add this host to MCP_ALLOWED_HOSTS.`,
      );
      return;
    }
    await next();
  }

  async function guardOrigin(ctx: Context, next: Next): Promise<void> {
    const origin = ctx.get('origin');
    if (!origin) {
      await next();
      return;
    }
    if (!origins.has(origin) && !isLoopbackOrigin(origin)) {
      forbid(ctx, `Origin ${origin} may not call /mcp (DNS rebinding protection); allow it with MCP_ALLOWED_ORIGINS.`);
      return;
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.vary('Origin');
    ctx.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'POST');
      ctx.set('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
    }
    await next();
  }

  async function guardMethod(ctx: Context, next: Next): Promise<void> {
    if (ctx.method === 'POST') {
      await next();
      return;
    }
    ctx.set('Allow', ALLOWED_METHODS);
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    // Stateless Streamable HTTP: no standalone SSE stream to GET and no session to DELETE.
    throw new ApiError(
      'methodNotAllowed',
      `${ctx.method} is not supported on /mcp: this server is stateless (no SSE stream, no sessions); send each JSON-RPC message as a POST.`,
      { headers: { Allow: ALLOWED_METHODS } },
    );
  }

  return [guardHost, guardOrigin, guardMethod];
}

function forbid(ctx: Context, message: string): void {
  ctx.status = 403;
  ctx.body = { error: message, code: 'unauthorized' };
}
