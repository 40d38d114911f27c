/**
 * An MCP client's side of OAuth for the end-to-end suites: the MCP SDK's `OAuthClientProvider`
 * with its state in memory (the authorization URL is handed to the test's browser), and the
 * loopback redirect target that hands over each code the browser brings.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/**
 * A provider registered as `name`. With `keepRefreshToken: false` it keeps no refresh token:
 * the SDK answers a 403 insufficient_scope by refreshing when it holds one, and a refresh
 * cannot widen a grant (modelcontextprotocol/typescript-sdk issue 2255), so a client that
 * steps up must authorize again.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(
    readonly redirectUrl: string,
    readonly name = 'E2E Agent',
    readonly options: { keepRefreshToken?: boolean } = {},
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.information = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    if (this.options.keepRefreshToken === false) {
      const { refresh_token: _dropped, ...kept } = tokens;
      this.saved = kept;
    } else this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The MCP client's loopback redirect target: `next()` is the next code the browser brings. */
export async function callbackServer(): Promise<{ url: string; next(): Promise<string>; close(): Promise<void> }> {
  const waiting: ((code: string) => void)[] = [];
  const arrived: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    res.setHeader('content-type', 'text/html');
    res.end('<!doctype html><title>Connected</title><p>You can close this window.</p>');
    const value = url.searchParams.get('code');
    if (url.pathname === '/callback' && value) (waiting.shift() ?? ((c: string) => arrived.push(c)))(value);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    next: () => (arrived.length ? Promise.resolve(arrived.shift()!) : new Promise<string>((resolve) => waiting.push(resolve))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
