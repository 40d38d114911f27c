/**
 * Signing in through the browser: the SDK's OAuth helper (`@listkeeper/sdk/oauth`: PKCE with a
 * loopback redirect, refresh, revocation), with the command line's own advice added to its
 * refusals.
 * @see docs/auth.md
 */
import {
  OAuthError,
  refreshSession,
  revokeSession,
  signInWithBrowser as sdkSignIn,
  type OAuthSession as SdkSession,
  type SignInGrant,
} from '@listkeeper/sdk/oauth';
import type { OAuthSession } from './credentials.js';
import { CliError } from './output.js';

/** What a finished sign-in gives: the access token and how to refresh it. */
export interface SignedIn {
  token: string;
  session: OAuthSession;
}

/** What to do next, after each way a sign-in or refresh can fail. */
const ADVICE: Record<OAuthError['failure'], string> = {
  unreachable: 'Is the server running? Give its address with --url.',
  notListkeeper: 'Check --url.',
  noRegistration: "Sign in with 'listkeeper login --key lk_…' instead.",
  registration: '',
  notCompleted: '',
  timedOut: "Run 'listkeeper login' again.",
  token: '',
  expired: "Run 'listkeeper login' again.",
  ended: "Run 'listkeeper login' again.",
  refresh: '',
};

function withAdvice<T>(work: Promise<T>): Promise<T> {
  return work.catch((err: unknown) => {
    if (!(err instanceof OAuthError)) throw err;
    throw new CliError(ADVICE[err.failure] ? `${err.message} ${ADVICE[err.failure]}` : err.message);
  });
}

function signedIn(session: SdkSession): SignedIn {
  const { accessToken, ...rest } = session;
  return { token: accessToken, session: rest };
}

/** The browser sign-in: `show` gets the authorization address (and opens it, unless --no-browser). */
export async function signInWithBrowser(
  serviceUrl: string,
  options: { version: string; show: (authorizationUrl: string) => void; waitMs?: number; grant?: SignInGrant },
): Promise<SignedIn> {
  const session = await withAdvice(
    sdkSignIn({
      baseUrl: serviceUrl,
      clientName: 'listkeeper command line',
      softwareId: 'listkeeper-cli',
      softwareVersion: options.version,
      onAuthorizationUrl: options.show,
      ...(options.grant ? { grant: options.grant } : {}),
      ...(options.waitMs === undefined ? {} : { timeout: options.waitMs }),
    }),
  );
  return signedIn(session);
}

/** Trades the refresh token for a new access token (and the next refresh token: they rotate). */
export async function refreshSignIn(session: OAuthSession, token: string): Promise<SignedIn> {
  return signedIn(await withAdvice(refreshSession({ ...session, accessToken: token })));
}

/** Asks the server to forget the refresh token (and with it the connection); false when it could not. */
export function revokeSignIn(session: OAuthSession): Promise<boolean> {
  return revokeSession({ ...session, accessToken: '' });
}
