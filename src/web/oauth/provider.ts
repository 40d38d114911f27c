/**
 * The OAuth 2.1 authorization server: oidc-provider, configured for what MCP clients need
 * and nothing more.
 * - Clients name themselves by Client ID Metadata Documents (an https URL as `client_id`,
 *   src/auth/oauth/client-metadata.ts) or, for older clients, register dynamically (RFC 7591);
 *   public clients only (`token_endpoint_auth_method` none); redirect URIs are https on any
 *   host, or http on a loopback address, and are matched exactly, port included.
 * - Authorization code flow only, PKCE S256 required (plain is refused: see docs/auth.md).
 * - Access tokens: ES256 JWTs (RFC 9068) for the service (audience BASE_URL), one hour.
 *   The `resource` parameter (RFC 8707) may name the service or any address below it;
 *   omitted, it defaults to BASE_URL; any other resource is refused (invalid_target).
 * - Refresh tokens on every authorization, rotated on every use; reusing a rotated one
 *   revokes the whole grant.
 * - Sign-in and consent happen on the web pages (src/web/routes.ts); the provider's own
 *   login prompt also fires when the web session and the provider session disagree.
 * @see docs/auth.md
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Provider, errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../../core/config.js';
import { html, page } from '../html.js';
import { currentUser } from '../sessions.js';
import { postgresAdapter } from '../../auth/oauth/adapter.js';
import { answeredScope, approvedRedirectUris, connectionGrantOf, grantIdOf, keepApprovedRedirectUris } from '../../auth/oauth/grants.js';
import { covers, grantFromScopes, GRANT_SCOPES, isGrantScope } from '../../domain/accounts/grants.js';
import { CACHE_SECONDS, clientMetadataDocuments, isMetadataDocumentId } from '../../auth/oauth/client-metadata.js';
import type { AuthKeys } from '../../auth/oauth/keys.js';
import { findUser } from '../../domain/accounts/accounts.js';

export const ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  jwks: '/oauth/jwks',
  revocation: '/oauth/revoke',
  end_session: '/oauth/logout',
} as const;

/** Where the provider sends the browser for sign-in and consent. */
export const CONSENT_PATH = '/oauth/consent';

/**
 * Scopes a client may request: OpenID's, which never narrow what a token can do, and the
 * grant's (domain/accounts/grants.ts), which do; `list:<id>` is kept by its shape.
 */
export const SCOPES = ['openid', 'email', 'offline_access', ...GRANT_SCOPES] as const;
/**
 * What a request without any known scope is processed as (RFC 6749 3.3 allows a default).
 * oidc-provider drops `offline_access` unless the request also says prompt=consent, so the
 * default is `openid`; refresh tokens are issued regardless (issueRefreshToken below).
 */
export const DEFAULT_SCOPE = 'openid';

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const GRANT_TTL_SECONDS = 365 * 24 * 3600;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

type Documents = ReturnType<typeof clientMetadataDocuments>;

/** Builds the provider on the given keys and database. */
export function createProvider(deps: { db: Knex; config: Config; keys: AuthKeys; log: Logger }): Provider {
  const { db, config, keys, log } = deps;
  const issuer = config.baseUrl;

  const documents = clientMetadataDocuments({
    allowPrivate: config.outboundAllowPrivate,
    onRefused: (clientId, reason) => log.info({ clientId, reason }, 'client metadata document refused'),
  });

  const policy = interactionPolicyFor(db);

  const configuration: Configuration = {
    adapter: postgresAdapter(db),
    clients: [],
    // Every request the provider makes (only metadata documents: the other fetching features are off) goes through the outbound guard.
    fetch: documents.fetch,
    jwks: { keys: keys.signing as never },
    cookies: {
      keys: keys.cookie,
      names: { session: 'lk_oidc_session', interaction: 'lk_oidc_interaction', resume: 'lk_oidc_resume' },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    routes: ROUTES,
    responseTypes: ['code'],
    scopes: [...SCOPES],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    clientDefaults: {
      application_type: 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['none'],
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    allowOmittingSingleRegisteredRedirectUri: false,
    pkce: { required: () => true },
    features: features(documents, issuer),
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      Grant: GRANT_TTL_SECONDS,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
    },
    // Spec: a refresh token on every authorization, whatever the scope.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    // Consent is asked once per app and return address, not once per browser: the provider's
    // own default looks only in this browser's authorization session, so a person who allowed
    // an app in another browser (or whose session ended) was asked again. The grant found here
    // still has to cover the request's scopes and its redirect_uri, or the consent prompt asks
    // for what it lacks.
    loadExistingGrant: async (ctx) => {
      const { client, account } = ctx.oidc;
      if (!client || !account) return undefined;
      const grantId = ctx.oidc.result?.consent?.grantId ?? (await grantIdOf(db, account.accountId, client.clientId));
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    rotateRefreshToken: true,
    extraTokenClaims: async (_ctx, token) => (token.kind === 'AccessToken' && token.grantId ? { gid: token.grantId } : undefined),
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      validator: (_ctx, key, _value, metadata) => {
        if (key === 'software_id') enforceRedirectPolicy(metadata as { redirect_uris?: unknown; application_type?: string });
      },
    },
    findAccount: async (_ctx, sub) => {
      if (!/^[0-9a-f-]{36}$/i.test(sub)) return undefined;
      const user = await findUser(db, sub);
      if (!user) return undefined;
      return { accountId: user.id, claims: async () => ({ sub: user.id, email: user.email, email_verified: false }) };
    },
    interactions: {
      policy,
      url: async (_ctx, interaction) => `${CONSENT_PATH}?interaction=${encodeURIComponent(interaction.uid)}`,
    },
    renderError: errorPage(documents),
  };

  const provider = new Provider(issuer, configuration);
  keepApprovedRedirectUris(provider.Grant);
  provider.use(defaultScope);
  provider.on('server_error', (_ctx: unknown, err: unknown) => log.error({ err }, 'oauth server error'));
  return provider;
}

/** The prompts: the provider's own, with the web session, the return address and the grant's reach checked too. */
function interactionPolicyFor(db: Knex): ReturnType<typeof interactionPolicy.base> {
  const policy = interactionPolicy.base();
  // The web pages are where a person signs in and out: when the browser's web session names
  // someone else than the provider's session (or nobody), ask for sign-in again.
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('web_session_mismatch', 'the web session and the authorization session name different people', async (ctx) => {
      const user = await currentUser(ctx, db);
      return user?.id !== ctx.oidc.session?.accountId ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT;
    }),
  );
  // Consent is for an app returning to one address: a client may register several (one of
  // them an attacker's), and a code sent to an address the person never saw must take a new
  // consent, naming that address.
  policy.get('consent')!.checks.add(
    new interactionPolicy.Check(
      'redirect_uri_not_approved',
      'the person has not allowed this app to return to this address',
      (ctx) =>
        approvedRedirectUris(ctx.oidc.grant).includes(String(ctx.oidc.params?.redirect_uri))
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT,
      (ctx) => ({ redirectUri: String(ctx.oidc.params?.redirect_uri) }),
    ),
  );

  // A connection whose grant is narrower than what the app asks now (a step-up to write, more
  // lists, or the whole person) is asked for again, showing what is added; a request the
  // person already answered as it stands is not asked twice.
  policy.get('consent')!.checks.add(
    new interactionPolicy.Check('grant_narrower_than_request', 'the app asks for more than the person allowed it', (ctx) => {
      const grant = ctx.oidc.grant;
      if (!grant) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      const scope = String(ctx.oidc.params?.scope ?? '');
      const held = connectionGrantOf(grant);
      if (covers(held, grantFromScopes(scope)) || answeredScope(grant) === scope) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
      return interactionPolicy.Check.REQUEST_PROMPT;
    }),
  );
  return policy;
}

/** What the provider does: code flow for public clients, metadata documents and registration, this service as the one resource. */
function features(documents: Documents, issuer: string): Configuration['features'] {
  return {
    devInteractions: { enabled: false },
    registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
    clientIdMetadataDocument: {
      enabled: true,
      ack: 'draft-02',
      allowFetch: documents.allowFetch,
      allowClient: documents.allowClient as never,
      cacheDuration: CACHE_SECONDS,
    },
    // A client revokes its own tokens only ("removing the connector in the client deletes its token").
    revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
    introspection: { enabled: false },
    userinfo: { enabled: false },
    rpInitiatedLogout: { enabled: false },
    // Bearer tokens only: the resource side does not check DPoP proofs, so it must not issue bound tokens.
    dPoP: { enabled: false },
    pushedAuthorizationRequests: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => issuer,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => {
        if (!isServiceResource(indicator, issuer)) {
          throw new errors.InvalidTarget(`resource must be this service (${issuer}) or an address below it`);
        }
        return {
          scope: '',
          audience: issuer,
          accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  };
}

/** The page a refused request shows: why, and what the app's description lacks when that is the cause. */
function errorPage(documents: Documents): NonNullable<Configuration['renderError']> {
  return async (ctx, out) => {
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    const clientId = String(ctx.oidc?.params?.client_id ?? '');
    const refusal = isMetadataDocumentId(clientId) ? documents.refusal(clientId) : undefined;
    ctx.body = page(
      'This sign-in cannot continue',
      html`<div class="card"><p class="error">${out.error_description ?? out.error}</p>
${refusal ? html`<p>The app's description at <code>${clientId}</code> cannot be used: ${refusal}.</p>` : html``}
<p>The app that sent you here made a request listkeeper refuses (<code>${out.error}</code>). Go back to the app and connect again; if this keeps happening, the app is misconfigured.</p></div>`,
    );
  };
}

/** True when `indicator` names this service: the same origin and a path at or below BASE_URL's. */
export function isServiceResource(indicator: string, baseUrl: string): boolean {
  const url = URL.parse(indicator);
  const base = new URL(baseUrl);
  if (!url || url.origin !== base.origin || url.search !== '' || url.hash !== '' || url.username || url.password) return false;
  const basePath = base.pathname.replace(/\/+$/, '');
  return url.pathname === basePath || url.pathname === `${basePath}/` || url.pathname.startsWith(`${basePath}/`);
}

/**
 * Registration policy (spec "Client requirements"): every redirect URI is https, or http on
 * a loopback address for command-line tools. Every client is a 'web' client to
 * oidc-provider, whose 'native' type would let a loopback redirect URI match on any port.
 */
function enforceRedirectPolicy(metadata: { redirect_uris?: unknown; application_type?: string }): void {
  const uris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
  for (const uri of uris) {
    const url = typeof uri === 'string' ? URL.parse(uri) : null;
    const ok = url !== null && (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)));
    if (!ok) {
      throw new errors.InvalidClientMetadata(
        `redirect_uris must be https addresses, or http addresses on a loopback host (localhost, 127.0.0.1, [::1]); got ${JSON.stringify(uri)}`,
      );
    }
  }
  metadata.application_type = 'web';
}

/** Drops scope values we do not know; a request left with none is processed as DEFAULT_SCOPE. */
async function defaultScope(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  if (ctx.method === 'GET' && ctx.path === ROUTES.authorization) {
    const raw = ctx.query.scope;
    if (typeof raw === 'string' || raw === undefined) {
      const known = (raw ?? '').split(' ').filter((s) => (SCOPES as readonly string[]).includes(s) || isGrantScope(s));
      const scope = known.length > 0 ? [...new Set(known)].join(' ') : DEFAULT_SCOPE;
      if (scope !== raw) ctx.query = { ...ctx.query, scope };
    }
  }
  await next();
}
