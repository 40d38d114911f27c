/**
 * Signing in through the browser with OAuth 2.1 (oauth4webapi): the service's metadata
 * (RFC 9728, then RFC 8414), a client registered for this sign-in (RFC 7591) with a loopback
 * redirect on a random port (RFC 8252), the authorization code flow with PKCE S256, and the
 * refresh and revocation of its tokens later on.
 * @see docs/auth.md
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import type { OAuthSession } from './credentials.js';
import { CliError } from './output.js';

/** What a finished sign-in gives: the access token and how to refresh it. */
export interface SignedIn {
  token: string;
  session: OAuthSession;
}

const SCOPE = 'openid email offline_access';
/** How long the command waits for the browser before giving up. */
const DEFAULT_WAIT_MS = 10 * 60_000;

/** oauth4webapi talks https only unless told; a service on http (a laptop, a test) is allowed knowingly. */
function transport(url: string, timeoutMs = 30_000): { [oauth.allowInsecureRequests]: boolean; signal: () => AbortSignal } {
  return { [oauth.allowInsecureRequests]: new URL(url).protocol === 'http:', signal: () => AbortSignal.timeout(timeoutMs) };
}

/** The authorization server of the service at `serviceUrl`, and the resource its tokens are for. */
async function discover(serviceUrl: string): Promise<{ as: oauth.AuthorizationServer; resource: string }> {
  let issuer = serviceUrl;
  let resource = serviceUrl;
  let metadata: Response;
  try {
    metadata = await fetch(`${serviceUrl}/.well-known/oauth-protected-resource`, { signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new CliError(`Could not reach listkeeper at ${serviceUrl} (${causeOf(err)}). Is the server running? Give its address with --url.`);
  }
  if (metadata.ok) {
    const body = (await metadata.json()) as { resource?: string; authorization_servers?: string[] };
    issuer = body.authorization_servers?.[0] ?? issuer;
    resource = body.resource ?? resource;
  }
  const issuerUrl = new URL(issuer);
  try {
    const as = await oauth.processDiscoveryResponse(issuerUrl, await oauth.discoveryRequest(issuerUrl, { algorithm: 'oauth2', ...transport(issuer) }));
    return { as, resource };
  } catch (err) {
    throw new CliError(`${serviceUrl} does not answer as a listkeeper service (its OAuth metadata at ${issuer}: ${causeOf(err)}). Check --url.`);
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
      } You can close this tab and go back to the terminal.</p>`,
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
 * The browser sign-in: registers this command as an app with a loopback redirect, shows (and,
 * with `show`, opens) the authorization address, waits for the redirect and trades its code.
 */
export async function signInWithBrowser(
  serviceUrl: string,
  options: { version: string; show: (authorizationUrl: string) => void; waitMs?: number },
): Promise<SignedIn> {
  const { as, resource } = await discover(serviceUrl);
  if (!as.registration_endpoint) throw new CliError(`${as.issuer} does not let apps register themselves; sign in with 'listkeeper login --key lk_…' instead.`);
  const loopback = await listenForRedirect();
  try {
    const redirectUri = `http://127.0.0.1:${loopback.port}/callback`;
    let client: oauth.Client;
    try {
      const registration = await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'listkeeper command line',
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
          software_id: 'listkeeper-cli',
          software_version: options.version,
        },
        transport(as.issuer),
      );
      client = await oauth.processDynamicClientRegistrationResponse(registration);
    } catch (err) {
      throw new CliError(`${as.issuer} did not register the command line as an app: ${oauthReason(err)}`);
    }
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorize = new URL(as.authorization_endpoint!);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope: SCOPE,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource,
    }))
      authorize.searchParams.set(name, value);
    options.show(authorize.href);

    const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    let timer: NodeJS.Timeout | undefined;
    const back = await Promise.race([
      loopback.redirect,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new CliError(`No answer from the browser in ${Math.round(waitMs / 60_000)} minutes; run 'listkeeper login' again.`)),
          waitMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));

    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(as, client, back, state);
    } catch (err) {
      throw new CliError(`The sign-in was not completed: ${oauthReason(err)}`);
    }
    try {
      const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, {
        additionalParameters: { resource },
        ...transport(as.issuer),
      });
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      return {
        token: tokens.access_token,
        session: {
          issuer: as.issuer,
          tokenEndpoint: as.token_endpoint!,
          revocationEndpoint: as.revocation_endpoint,
          clientId: client.client_id,
          idTokenAlg: client.id_token_signed_response_alg,
          resource,
          refreshToken: tokens.refresh_token,
          expiresAt: expiry(tokens.expires_in),
        },
      };
    } catch (err) {
      throw new CliError(`${as.issuer} did not hand out a token for the sign-in: ${oauthReason(err)}`);
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

/** Trades the refresh token for a new access token (and the next refresh token: they rotate). */
export async function refreshSignIn(session: OAuthSession, serviceUrl: string): Promise<SignedIn> {
  if (!session.refreshToken) throw new CliError(`Your sign-in to ${serviceUrl} has expired; run 'listkeeper login' again.`);
  const { as, client } = saved(session);
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), session.refreshToken, {
      additionalParameters: { resource: session.resource },
      ...transport(session.tokenEndpoint),
    });
    const tokens = await oauth.processRefreshTokenResponse(as, client, response);
    return {
      token: tokens.access_token,
      session: { ...session, refreshToken: tokens.refresh_token ?? session.refreshToken, expiresAt: expiry(tokens.expires_in) },
    };
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError)
      throw new CliError(`Your sign-in to ${serviceUrl} has ended (${oauthReason(err)}); run 'listkeeper login' again.`);
    throw new CliError(`Could not renew your sign-in at ${session.tokenEndpoint}: ${oauthReason(err)}`);
  }
}

/** Asks the server to forget the refresh token (and with it the connection); false when it could not. */
export async function revokeSignIn(session: OAuthSession): Promise<boolean> {
  if (!session.refreshToken || !session.revocationEndpoint) return false;
  const { as, client } = saved(session);
  try {
    // Short: signing out must not hang on a server that is gone.
    const response = await oauth.revocationRequest(as, client, oauth.None(), session.refreshToken, transport(session.revocationEndpoint, 5_000));
    await oauth.processRevocationResponse(response);
    return true;
  } catch {
    return false;
  }
}

function expiry(expiresIn: number | undefined): string | undefined {
  return expiresIn === undefined ? undefined : new Date(Date.now() + expiresIn * 1000).toISOString();
}

/** The sentence of an OAuth error: its error_description and code, or the exception's message. */
function oauthReason(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError)
    return `${err.error_description ?? err.message} (${err.error})`;
  if (err instanceof CliError) return err.message;
  return causeOf(err);
}

function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
}
