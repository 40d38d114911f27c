/**
 * The running service, for the people commands: an SDK client on the saved sign-in (or
 * LISTKEEPER_URL and LISTKEEPER_KEY, for scripts), refreshing an OAuth token shortly before it
 * expires. Everything these commands do goes through the SDK, over HTTP.
 *
 * The SDK ships inside the packed service (a bundled dependency); it is loaded when a people
 * command first needs it, so the admin commands start without it.
 */
import type { ListkeeperClient } from '@listkeeper/sdk';
import { readCredentials, withCredentialsLock, writeCredentials, type Credentials } from './credentials.js';
import { refreshSignIn } from './oauth-login.js';
import { CliError } from './output.js';

export type Service = ListkeeperClient<true>;
type Sdk = typeof import('@listkeeper/sdk');

/** Where `listkeeper login` signs in without --url. */
export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** Renew a token this long before it expires, so a request never leaves with one about to lapse. */
const EARLY_REFRESH_MS = 60_000;

let sdk: Sdk | undefined;

async function loadSdk(): Promise<Sdk> {
  sdk ??= await import('@listkeeper/sdk');
  return sdk;
}

/** The service address without a trailing slash, or a refusal naming what was given. */
export function serviceUrl(text: string): string {
  const url = URL.parse(text);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new CliError(`--url takes the service's address, like ${DEFAULT_URL}; got '${text}'.`);
  return url.href.replace(/\/+$/, '');
}

/** The address the last client was made for, named when it cannot be reached. */
let connectedUrl: string | undefined;

/** A throwing SDK client for the service at `url`. */
export async function clientFor(url: string, token: (() => Promise<string>) | string): Promise<Service> {
  const { createClient } = await loadSdk();
  connectedUrl = url;
  return createClient({ baseUrl: url, token, throwOnError: true, timeout: 30_000, maxRetries: 1 });
}

export interface Connection {
  service: Service;
  credentials: Credentials;
  /** Where the sign-in came from, for whoami. */
  source: 'saved' | 'environment';
}

/** The signed-in service, or a refusal that says how to sign in. */
export async function connect(env: NodeJS.ProcessEnv = process.env): Promise<Connection> {
  if (env.LISTKEEPER_KEY) {
    const saved = await readCredentials();
    const url = serviceUrl(env.LISTKEEPER_URL ?? saved?.url ?? DEFAULT_URL);
    const credentials: Credentials = { url, method: 'apiKey', token: env.LISTKEEPER_KEY };
    return { service: await clientFor(url, env.LISTKEEPER_KEY), credentials, source: 'environment' };
  }
  let credentials = await readCredentials();
  if (!credentials) throw new CliError("Not signed in: run 'listkeeper login' (in the browser) or 'listkeeper login --key lk_…' first.");
  const url = credentials.url;
  const token = async (): Promise<string> => {
    const current = credentials!;
    if (current.method !== 'oauth' || !current.oauth?.expiresAt) return current.token;
    if (Date.parse(current.oauth.expiresAt) - Date.now() > EARLY_REFRESH_MS) return current.token;
    credentials = await withCredentialsLock(async () => {
      // Another command may have refreshed meanwhile: its tokens are the ones to use now.
      const latest = (await readCredentials()) ?? current;
      const session = latest.oauth;
      if (latest.token !== current.token && session?.expiresAt && Date.parse(session.expiresAt) - Date.now() > EARLY_REFRESH_MS) return latest;
      const renewed = await refreshSignIn(session ?? current.oauth!, latest.token);
      const next: Credentials = { ...latest, token: renewed.token, oauth: renewed.session };
      await writeCredentials(next);
      return next;
    });
    return credentials.token;
  };
  return { service: await clientFor(url, token), credentials, source: 'saved' };
}

/** Whether `err` is the service's 401 (the token or key was refused). */
export function isUnauthorized(err: unknown): err is Error {
  return sdk !== undefined && err instanceof sdk.UnauthorizedError;
}

/**
 * The sentence to print for an error of the service (its own sentence, with what to do when it
 * is about signing in or reaching it); undefined for any other error.
 */
export function describeServiceError(err: unknown): string | undefined {
  if (!sdk || !(err instanceof sdk.ListkeeperError)) return undefined;
  if (err instanceof sdk.ConnectionError)
    return `Could not reach listkeeper${connectedUrl ? ` at ${connectedUrl}` : ''} (${err.message}). Is the server running? Sign in to another address with 'listkeeper login --url …'.`;
  if (err instanceof sdk.UnauthorizedError) return `${err.message} Sign in again with 'listkeeper login'.`;
  return err.message;
}
