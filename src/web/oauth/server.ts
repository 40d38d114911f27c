/**
 * Everything OAuth in one object for the app factory: the keys (from Postgres), the
 * provider, the access-token verifier and the protected-resource metadata (RFC 9728). The web
 * pages of sign-in, consent and Settings → Connections are mounted beside it by src/app.ts.
 * @see docs/auth.md "OAuth 2.1"
 */
import type { Context, Middleware, Next } from 'koa';
import compose from 'koa-compose';
import mount from 'koa-mount';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Provider } from 'oidc-provider';
import type { Config } from '../../core/config.js';
import type { AccessTokenVerifier } from '../../auth/guard.js';
import { loadOrCreateKeys, type AuthKeys } from '../../auth/oauth/keys.js';
import { createProvider, ROUTES, SCOPES } from './provider.js';
import { countRegistration } from '../../domain/accounts/registration-limit.js';
import { createAccessTokenVerifier, VerificationKeys } from '../../auth/oauth/verify.js';

export interface AuthServer {
  provider: Provider;
  keys: AuthKeys;
  /** The cookie secrets, newest first: the koa app's `keys` must be these (oidc-provider reads cookies through it). */
  cookieKeys: string[];
  verifyAccessToken: AccessTokenVerifier;
  /** Koa middleware: protected-resource metadata, then the provider's own endpoints. */
  middleware: Middleware;
}

/** Loads (or on first start creates) the keys and builds the authorization server. */
export async function createAuthServer(deps: { db: Knex; config: Config; log: Logger; now?: () => Date }): Promise<AuthServer> {
  const keys = await loadOrCreateKeys(deps.db);
  const provider = createProvider({ db: deps.db, config: deps.config, keys, log: deps.log });
  const verifyAccessToken = createAccessTokenVerifier({
    db: deps.db,
    config: deps.config,
    keys: new VerificationKeys(deps.db, keys),
    ...(deps.now ? { now: deps.now } : {}),
  });
  const middleware = compose([protectedResourceMetadata(deps.config), limitRegistrations(deps.db, deps.config), mount(provider as never)]);
  return { provider, keys, cookieKeys: keys.cookie, verifyAccessToken, middleware };
}

/**
 * RFC 9728 metadata at `/.well-known/oauth-protected-resource`, and the same document at
 * `/.well-known/oauth-protected-resource/mcp` and `/api/v1` where path-aware clients look:
 * the service is one protected resource (BASE_URL, the audience of every access token)
 * behind one authorization server (itself). One name whichever way a client discovers it,
 * so the `resource` it sends stays the same from authorization to refresh.
 */
function protectedResourceMetadata(config: Config): Middleware {
  const prefix = '/.well-known/oauth-protected-resource';
  const suffixes = new Set(['', '/mcp', '/api/v1']);
  return async function serveProtectedResourceMetadata(ctx: Context, next: Next): Promise<void> {
    if (!ctx.path.startsWith(prefix) || !suffixes.has(ctx.path.slice(prefix.length))) return next();
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Access-Control-Allow-Methods', 'GET');
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = {
      resource: config.baseUrl,
      authorization_servers: [config.baseUrl],
      bearer_methods_supported: ['header'],
      scopes_supported: [...SCOPES],
      resource_name: 'listkeeper',
      resource_documentation: `${config.baseUrl}/api/v1/openapi.json`,
    };
  };
}

/** Largest client metadata document a registration may send (RFC 7591), in bytes. */
export const MAX_CLIENT_METADATA_BYTES = 8 * 1024;

/**
 * Before oidc-provider's registration endpoint: metadata over 8 KiB is refused
 * (invalid_client_metadata), and registrations are counted per address and day
 * (CLIENT_REGISTRATIONS_PER_DAY). A client nobody approves is dropped after 7 days (adapter.ts).
 */
function limitRegistrations(db: Knex, config: Config): Middleware {
  return async function limitClientRegistration(ctx: Context, next: Next): Promise<void> {
    if (ctx.method !== 'POST' || ctx.path !== ROUTES.registration) return next();
    const length = Number(ctx.get('content-length') || 0);
    if (length > MAX_CLIENT_METADATA_BYTES || (!length && ctx.get('transfer-encoding'))) {
      ctx.status = 400;
      ctx.body = {
        error: 'invalid_client_metadata',
        error_description: `client metadata is limited to ${MAX_CLIENT_METADATA_BYTES} bytes, sent with a Content-Length`,
      };
      return;
    }
    const wait = await countRegistration(db, ctx.ip || 'unknown', config.clientRegistrationsPerDay);
    if (wait > 0) {
      ctx.status = 429;
      ctx.set('Retry-After', String(wait));
      ctx.body = {
        error: 'invalid_request',
        error_description: `too many client registrations from this address today; try again in ${Math.ceil(wait / 3600)} hours`,
      };
      return;
    }
    await next();
  };
}
