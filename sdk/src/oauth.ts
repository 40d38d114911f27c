/**
 * `@listkeeper/sdk/oauth`: signing in as a person from a command-line or desktop app, with
 * OAuth 2.1 on oauth4webapi. The service's metadata (RFC 9728, then RFC 8414), the app
 * registered for this sign-in (RFC 7591) with a loopback redirect on a random port (RFC 8252),
 * the authorization code flow with PKCE S256, then refresh (refresh tokens rotate) and
 * revocation. `sessionToken` turns a session into the `token` function of `createClient`.
 *
 * Node only (it listens on 127.0.0.1 for the redirect), and it needs `oauth4webapi` installed
 * beside the SDK (an optional peer dependency: the rest of the SDK does without it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';

/** A sign-in: its access token and what refreshing and revoking it need. Plain data: save it as JSON. */
export interface OAuthSession {
  accessToken: string;
  /** When the access token stops working (ISO 8601); absent when the server did not say. */
  expiresAt?: string | undefined;
  refreshToken?: string | undefined;
  issuer: string;
  tokenEndpoint: string;
  revocationEndpoint?: string | undefined;
  clientId: string;
  /** The ID token algorithm the app registered with, checked on refresh answers. */
  idTokenAlg?: string | undefined;
  /** The resource the tokens are for (the service's address). */
  resource: string;
}

export interface SignInOptions {
  /** The service's address, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** Called with the address the person opens to sign in: open a browser there, or print it. */
  onAuthorizationUrl: (url: string) => void | Promise<void>;
  /** The app's name on the consent page and in the person's connections. */
  clientName: string;
  softwareId?: string;
  softwareVersion?: string;
  /** Default `openid email offline_access` (offline_access: a refresh token). */
  scope?: string;
  /**
   * Ask for less than the whole person (docs/auth.md "Grants"): read only or no deletes, and
   * chosen lists by id (the person may narrow it further on the consent page).
   */
  grant?: SignInGrant;
  /** Milliseconds to wait for the browser to come back (default 10 minutes). */
  timeout?: number;
  /** Milliseconds one request to the server may take (default 30000). */
  requestTimeout?: number;
}

/** What a sign-in asks to be allowed. */
export interface SignInGrant {
  access?: 'readOnly' | 'noDeletes' | 'all';
  /** List ids. */
  lists?: string[];
  /** With `lists`: also the lists the person makes later. */
  laterLists?: boolean;
}

/** The scopes that ask for `grant`, beside `scope`. */
export function grantScope(scope: string, grant: SignInGrant | undefined): string {
  if (!grant) return scope;
  const level = { readOnly: 'lists:read', noDeletes: 'lists:write', all: 'lists:delete' }[grant.access ?? 'all'];
  const lists = grant.lists?.length ? [...grant.lists.map((id) => `list:${id}`), ...(grant.laterLists ? ['lists:later'] : [])] : [];
  return [scope, level, ...lists].join(' ');
}

/** Why a sign-in, refresh or revocation did not work; `message` is a sentence for the person. */
export type OAuthFailure =
  | 'unreachable' // the service did not answer
  | 'notListkeeper' // no OAuth metadata where a listkeeper service keeps it
  | 'noRegistration' // the server lets no app register itself
  | 'registration' // it refused this registration
  | 'notCompleted' // the person declined, or the redirect did not match
  | 'timedOut' // no redirect back within `timeout`
  | 'token' // the code was not traded for tokens
  | 'expired' // nothing left to refresh with
  | 'ended' // the server refused the refresh token: the sign-in is over
  | 'refresh'; // the refresh failed otherwise (network): try again later

export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  constructor(
    readonly failure: OAuthFailure,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_SCOPE = 'openid email offline_access';
const DEFAULT_WAIT_MS = 10 * 60_000;
const DEFAULT_REQUEST_MS = 30_000;

/** oauth4webapi talks https only unless told; a service on http (a laptop, a test) is allowed knowingly. */
function transport(url: string, timeoutMs: number): { [oauth.allowInsecureRequests]: boolean; signal: () => AbortSignal } {
  return { [oauth.allowInsecureRequests]: new URL(url).protocol === 'http:', signal: () => AbortSignal.timeout(timeoutMs) };
}

/** The authorization server of the service at `serviceUrl`, and the resource its tokens are for. */
async function discover(serviceUrl: string, timeoutMs: number): Promise<{ as: oauth.AuthorizationServer; resource: string }> {
  let issuer = serviceUrl;
  let resource = serviceUrl;
  let metadata: Response;
  try {
    metadata = await fetch(`${serviceUrl}/.well-known/oauth-protected-resource`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    throw new OAuthError('unreachable', `Could not reach listkeeper at ${serviceUrl} (${causeOf(err)}).`);
  }
  if (metadata.ok) {
    const body = (await metadata.json()) as { resource?: string; authorization_servers?: string[] };
    issuer = body.authorization_servers?.[0] ?? issuer;
    resource = body.resource ?? resource;
  }
  const issuerUrl = new URL(issuer);
  try {
    const as = await oauth.processDiscoveryResponse(
      issuerUrl,
      await oauth.discoveryRequest(issuerUrl, { algorithm: 'oauth2', ...transport(issuer, timeoutMs) }),
    );
    return { as, resource };
  } catch (err) {
    throw new OAuthError('notListkeeper', `${serviceUrl} does not answer as a listkeeper service (its OAuth metadata at ${issuer}: ${causeOf(err)}).`);
  }
}

/** A server on 127.0.0.1 that waits for the one redirect back from the browser. */
async function listenForRedirect(): Promise<{ port: number; redirect: Promise<URL>; close(): void }> {
  let deliver: (url: URL) => void = () => undefined;
  const redirect = new Promise<URL>((resolve) => (deliver = resolve));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const refused = url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(
      `<!doctype html><meta charset="utf-8"><title>listkeeper</title><p style="font:16px system-ui;margin:3em">${
        refused ? 'The sign-in was not completed.' : 'Signed in.'
      } You can close this tab and go back to the app.</p>`,
    );
    deliver(url);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  return {
    port: (server.address() as AddressInfo).port,
    redirect,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * Signs the person in through their browser: registers the app with a loopback redirect, hands
 * the authorization address to `onAuthorizationUrl`, waits for the redirect and trades its code
 * (with the PKCE verifier) for tokens.
 */
export async function signInWithBrowser(options: SignInOptions): Promise<OAuthSession> {
  const requestMs = options.requestTimeout ?? DEFAULT_REQUEST_MS;
  const serviceUrl = options.baseUrl.replace(/\/+$/, '');
  const { as, resource } = await discover(serviceUrl, requestMs);
  if (!as.registration_endpoint) throw new OAuthError('noRegistration', `${as.issuer} does not let apps register themselves.`);
  const loopback = await listenForRedirect();
  try {
    const redirectUri = `http://127.0.0.1:${loopback.port}/callback`;
    let client: oauth.Client;
    try {
      const registration = await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: options.clientName,
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          ...(options.softwareId ? { software_id: options.softwareId } : {}),
          ...(options.softwareVersion ? { software_version: options.softwareVersion } : {}),
        },
        transport(as.issuer, requestMs),
      );
      client = await oauth.processDynamicClientRegistrationResponse(registration);
    } catch (err) {
      throw new OAuthError('registration', `${as.issuer} did not register ${options.clientName} as an app: ${oauthReason(err)}`);
    }
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorize = new URL(as.authorization_endpoint!);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: grantScope(options.scope ?? DEFAULT_SCOPE, options.grant),
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource,
    }))
      authorize.searchParams.set(name, value);
    await options.onAuthorizationUrl(authorize.href);

    const waitMs = options.timeout ?? DEFAULT_WAIT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const back = await Promise.race([
      loopback.redirect,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new OAuthError('timedOut', `No answer from the browser in ${Math.max(1, Math.round(waitMs / 60_000))} minutes.`)),
          waitMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));

    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, client, back, state);
    } catch (err) {
      throw new OAuthError('notCompleted', `The sign-in was not completed: ${oauthReason(err)}`);
    }
    try {
      const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
        additionalParameters: { resource },
        ...transport(as.issuer, requestMs),
      });
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      return {
        accessToken: tokens.access_token,
        expiresAt: expiry(tokens.expires_in),
        refreshToken: tokens.refresh_token,
        issuer: as.issuer,
        tokenEndpoint: as.token_endpoint!,
        revocationEndpoint: as.revocation_endpoint,
        clientId: client.client_id,
        idTokenAlg: client.id_token_signed_response_alg,
        resource,
      };
    } catch (err) {
      throw new OAuthError('token', `${as.issuer} did not hand out a token for the sign-in: ${oauthReason(err)}`);
    }
  } finally {
    loopback.close();
  }
}

/** The authorization server and client as saved, for refreshing and revoking without discovery. */
function saved(session: OAuthSession): { as: oauth.AuthorizationServer; client: oauth.Client } {
  return {
    as: { issuer: session.issuer, token_endpoint: session.tokenEndpoint, revocation_endpoint: session.revocationEndpoint },
    client: { client_id: session.clientId, ...(session.idTokenAlg ? { id_token_signed_response_alg: session.idTokenAlg } : {}) },
  };
}

/**
 * Trades the refresh token for a new access token and the next refresh token (they rotate: use
 * each once, and save the session this returns before using it).
 */
export async function refreshSession(session: OAuthSession, options: { requestTimeout?: number } = {}): Promise<OAuthSession> {
  if (!session.refreshToken) throw new OAuthError('expired', `The sign-in to ${session.resource} has expired and has no refresh token.`);
  const { as, client } = saved(session);
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), session.refreshToken, {
      additionalParameters: { resource: session.resource },
      ...transport(session.tokenEndpoint, options.requestTimeout ?? DEFAULT_REQUEST_MS),
    });
    const tokens = await oauth.processRefreshTokenResponse(as, client, response);
    return { ...session, accessToken: tokens.access_token, refreshToken: tokens.refresh_token ?? session.refreshToken, expiresAt: expiry(tokens.expires_in) };
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) throw new OAuthError('ended', `The sign-in to ${session.resource} has ended (${oauthReason(err)}).`);
    throw new OAuthError('refresh', `Could not renew the sign-in at ${session.tokenEndpoint}: ${oauthReason(err)}`);
  }
}

/** Asks the server to forget the refresh token (and with it the connection); false when it could not. */
export async function revokeSession(session: OAuthSession, options: { requestTimeout?: number } = {}): Promise<boolean> {
  if (!session.refreshToken || !session.revocationEndpoint) return false;
  const { as, client } = saved(session);
  try {
    const response = await oauth.revocationRequest(
      as,
      client,
      oauth.None(),
      session.refreshToken,
      transport(session.revocationEndpoint, options.requestTimeout ?? 5_000),
    );
    await oauth.processRevocationResponse(response);
    return true;
  } catch {
    return false;
  }
}

/**
 * A `token` function for `createClient` over a session: it answers the access token, refreshing
 * it shortly before it expires (one refresh at a time, however many requests ask at once), and
 * hands each renewed session to `onRefresh` so the app can save it.
 */
export function sessionToken(
  session: OAuthSession,
  options: { onRefresh?: (session: OAuthSession) => void | Promise<void>; earlyMs?: number; requestTimeout?: number } = {},
): () => Promise<string> {
  let current = session;
  let pending: Promise<OAuthSession> | undefined;
  const earlyMs = options.earlyMs ?? 60_000;
  return async () => {
    const expires = current.expiresAt ? Date.parse(current.expiresAt) : Number.POSITIVE_INFINITY;
    if (expires - earlyMs > Date.now()) return current.accessToken;
    pending ??= (async () => {
      const renewed = await refreshSession(current, options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout });
      await options.onRefresh?.(renewed);
      current = renewed;
      return renewed;
    })().finally(() => {
      pending = undefined;
    });
    return (await pending).accessToken;
  };
}

function expiry(expiresIn: number | undefined): string | undefined {
  return expiresIn === undefined ? undefined : new Date(Date.now() + expiresIn * 1000).toISOString();
}

/** The sentence of an OAuth error: its error_description and code, or the exception's message. */
function oauthReason(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError)
    return `${err.error_description ?? err.message} (${err.error})`;
  return causeOf(err);
}

function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
}
