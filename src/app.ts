/**
 * The koa app factory, apart from `listen` so tests build an app without a port.
 * A request's way: guards (request id, log, errors, per-address limit, origin check, rate limit + auth) →
 * adapter (REST or MCP) → operation → domain → store.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import { pino, type Logger } from 'pino';
import { trace } from '@opentelemetry/api';
import type { Config } from './core/config.js';
import type { Services } from './core/services.js';
import type { OperationContext, Principal } from './core/context.js';
import { openapiDocument } from './generated/openapi-document.js';
import { ApiError } from './core/errors.js';
import { API_ROOT, handleRest } from './http/rest.js';
import { readJsonBody } from './http/body.js';
import { handleMcp, toolCalled } from './mcp/server.js';
import { metricsText, rateLimitRefusals, requestDuration } from './core/metrics.js';
import { mcpTransportGuards } from './mcp/guards.js';
import { bearerGuard, bearerToken, type AccessTokenVerifier } from './auth/guard.js';
import { addressRateLimit } from './auth/rate-limit.js';
import type { AuthServer } from './web/oauth/server.js';
import { getFile, putFile } from './http/files.js';
import { calendarFeed } from './http/calendar.js';
import { caldav } from './http/caldav.js';
import { webRoutes } from './web/routes.js';
import { apiDocs } from './web/api-docs.js';
import { assetRoutes } from './web/assets.js';

export interface AppDeps {
  db: Knex;
  config: Config;
  services: Services;
  log?: Logger;
  verifyAccessToken?: AccessTokenVerifier;
  /** The OAuth authorization server with its discovery documents and web pages; off when absent. */
  oauth?: AuthServer;
  /** Check every operation's output against its schema (on in tests). */
  validateResponses?: boolean;
  /** Whether the app is ready to serve (database up, migrations applied). */
  ready?: () => Promise<boolean>;
}

/** Builds the koa app. */
export function createApp(deps: AppDeps): Koa {
  const log = deps.log ?? pino({ level: deps.config.logLevel });
  const app = new Koa({ proxy: deps.config.trustProxy, maxIpsCount: deps.config.trustProxyHops });
  // oidc-provider, mounted below, reads its signed cookies through this app: same keys.
  if (deps.oauth) app.keys = deps.oauth.cookieKeys;
  const router = new Router();
  const guard = bearerGuard({
    db: deps.db,
    config: deps.config,
    now: () => deps.services.now(),
    ...(deps.verifyAccessToken ? { verifyAccessToken: deps.verifyAccessToken } : {}),
  });
  const validateResponses = deps.validateResponses ?? false;

  const operationContext = (ctx: Context): OperationContext => ({
    principal: ctx.state.principal as Principal,
    db: deps.db,
    config: deps.config,
    services: deps.services,
    log: ctx.state.log as Logger,
  });

  app.use(requestLog(log));
  // A service whose public address is https sets every cookie Secure, whatever the hop in front says.
  if (deps.config.baseUrl.startsWith('https:')) {
    app.use(async function secureCookies(ctx: Context, next: Next) {
      ctx.cookies.secure = true;
      await next();
    });
  }
  app.use(renderErrors);
  // A request with a bearer token on a route behind the guard (the router's first match says)
  // has its address counted by the guard, with its token, in one statement.
  const countedByGuard = (ctx: Context) => bearerToken(ctx) !== null && (router.match(ctx.path, ctx.method).pathAndMethod[0]?.stack.includes(guard) ?? false);
  app.use(addressRateLimit({ db: deps.db, limit: deps.config.rateLimitPerAddressPerMinute, now: () => deps.services.now(), countedByGuard }));

  router.get('/healthz', (ctx) => {
    ctx.body = { ok: true };
  });
  router.get('/readyz', async (ctx) => {
    const ready = deps.ready ? await deps.ready().catch(() => false) : true;
    ctx.status = ready ? 200 : 503;
    ctx.body = { ready };
  });
  router.get('/metrics', async function serveMetrics(ctx) {
    const token = deps.config.metricsToken;
    if (token && ctx.get('authorization') !== `Bearer ${token}`)
      throw new ApiError('unauthorized', 'Send Authorization: Bearer <METRICS_TOKEN> to read /metrics.');
    const { contentType, body } = await metricsText();
    ctx.type = contentType;
    ctx.body = body;
  });
  router.get(`${API_ROOT}/openapi.json`, (ctx) => {
    ctx.body = openapiDocument;
  });
  router.all(`${API_ROOT}/{*rest}`, guard, async (ctx) => {
    await handleRest(ctx, { bodyLimitBytes: deps.config.bodyLimitBytes, validateResponses, operationContext });
  });
  // Signed upload and download URLs of images: the signature is the permission, no token.
  const files = { db: deps.db, config: deps.config, now: () => deps.services.now() };
  router.put('/files/{*path}', putFile(files));
  router.get('/files/{*path}', getFile(files));
  // The calendar feed: the secret address is the permission.
  router.get('/calendar/{*file}', calendarFeed({ db: deps.db, config: deps.config, now: () => deps.services.now() }));
  router.all('/mcp', ...mcpTransportGuards(deps.config), guard, async (ctx) => {
    const body = await readJsonBody(ctx, deps.config.bodyLimitBytes);
    ctx.state.operation = toolCalled(body);
    await handleMcp(ctx, body, { validateResponses, operationContext });
  });

  // CalDAV for phones' task apps: HTTP Basic with an app password or the API key.
  app.use(
    caldav({
      db: deps.db,
      config: deps.config,
      now: () => deps.services.now(),
      operationContext: (ctx, principal) => ({ ...operationContext(ctx), principal }),
    }),
  );
  app.use(router.routes());
  app.use(apiDocs());
  app.use(assetRoutes());
  // The web app needs the web session the OAuth server's pages keep.
  if (deps.oauth) {
    app.use(webRoutes({ db: deps.db, config: deps.config, services: deps.services, provider: deps.oauth.provider, cookieKeys: deps.oauth.cookieKeys, log }));
    app.use(deps.oauth.middleware);
  }
  app.use(async function unknownRoute(ctx) {
    throw new ApiError('notFound', `No route ${ctx.method} ${ctx.path}. The API is at ${API_ROOT} (OpenAPI: ${API_ROOT}/openapi.json) and MCP at /mcp.`);
  });
  return app;
}

/**
 * Largest request line plus headers. Node's default (16 KiB) is smaller than the longest valid
 * GET /items (200 ids, a 500-character query, every filter), which then failed with a bare 431.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/** The HTTP server for an app; `listen` is the caller's. Oversized heads answer 400 `{error, code}`. */
export function createHttpServer(app?: Koa): Server {
  const server = app ? createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app.callback()) : createServer({ maxHeaderSize: MAX_HEADER_BYTES });
  server.on('clientError', function answerClientError(err: NodeJS.ErrnoException, socket: Duplex) {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return void socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      error: tooLarge
        ? `The request line and headers exceed ${MAX_HEADER_BYTES} bytes; send long id lists or queries in smaller calls.`
        : 'The request is not valid HTTP.',
      code: 'invalid',
    });
    socket.end(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

function requestLog(root: Logger) {
  return async function logRequest(ctx: Context, next: Next): Promise<void> {
    const requestId = ctx.get('x-request-id') || randomUUID();
    ctx.set('X-Request-Id', requestId);
    const log = root.child({ requestId });
    ctx.state.log = log;
    const started = performance.now();
    try {
      await next();
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const transport = ctx.path === '/mcp' ? 'mcp' : ctx.path.startsWith(API_ROOT) ? 'rest' : 'web';
      const operation = ctx.state.operation as string | undefined;
      requestDuration.observe({ operation: operation ?? 'other', transport, status: String(ctx.status) }, seconds);
      // The request's trace span (when tracing is on) is named by what it did.
      trace
        .getActiveSpan()
        ?.updateName(`${ctx.method} ${operation ?? ctx.path}`)
        .setAttributes({ 'listkeeper.request_id': requestId, 'listkeeper.transport': transport });
      log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) }, 'request');
    }
  };
}

/** Renders every error as `{error, code}`; unexpected ones as a generic 500, logged with the request id. */
async function renderErrors(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    const apiError = err instanceof ApiError ? err : null;
    if (apiError?.code === 'rateLimited') rateLimitRefusals.inc();
    if (!apiError) (ctx.state.log as Logger).error({ err }, 'unexpected error');
    const error = apiError ?? new ApiError('toolError', 'listkeeper failed on this request with an internal error; it was logged.');
    ctx.status = apiError ? apiError.status : 500;
    for (const [name, value] of Object.entries(error.extra.headers ?? {})) ctx.set(name, value);
    if (ctx.path === '/mcp' && error.code === 'rateLimited') {
      // MCP clients read JSON-RPC: the limit is also a JSON-RPC error (code -32029).
      ctx.body = {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32029, message: error.message, data: { code: 'rateLimited', retryAfter: Number(error.extra.headers?.['Retry-After'] ?? 60) } },
      };
      return;
    }
    ctx.body = apiError ? apiError.toBody() : { error: error.message, code: 'toolError' };
  }
}
