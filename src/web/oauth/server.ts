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
import { createProvider, SCOPES } from './provider.js';
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
  const middleware = compose([protectedResourceMetadata(deps.config), mount(provider as never)]);
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
