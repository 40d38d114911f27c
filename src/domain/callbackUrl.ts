/**
 * Webhook callback URLs and SSRF: a callback must be https and resolve only to globally
 * routable addresses, checked when it is registered and again at every delivery, where the
 * connection goes to the very address that was checked (no DNS rebinding between check and
 * connect). `OUTBOUND_ALLOW_PRIVATE=true` (local development) lifts both rules.
 * @see ../../../shared/spec/service.md "Signed webhook (REST)"
 */
import dns from 'node:dns';
import { isIP } from 'node:net';
import { isPublicAddress } from '../http/outbound.js';

/** True when `address` (an IP literal) is private, loopback, link-local or otherwise not public. */
export function isBlockedAddress(address: string): boolean {
  // One block list for every outbound request of the service (src/http/outbound.ts).
  return !isPublicAddress(address);
}

export class CallbackUrlError extends Error {
  constructor(
    message: string,
    readonly reason: 'invalid_url' | 'blocked_address' | 'unresolvable',
  ) {
    super(message);
  }
}

/** The URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Checks a callback URL now: scheme, no credentials, and (unless allowed) public addresses only. */
export async function checkCallbackUrl(raw: string, allowPrivate: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CallbackUrlError(`url '${raw}' is not an absolute URL.`, 'invalid_url');
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new CallbackUrlError(`url must be https${allowPrivate ? ' or http' : ''}; received ${url.protocol.replace(':', '')}.`, 'invalid_url');
  }
  if (url.username || url.password) throw new CallbackUrlError('url must not carry a user name or password; put a token in its path or query instead.', 'invalid_url');
  if (allowPrivate) return url;
  const addresses = await resolve(hostOf(url)).catch(() => null);
  if (!addresses || addresses.length === 0) throw new CallbackUrlError(`url host '${url.hostname}' does not resolve.`, 'unresolvable');
  const blocked = addresses.find(isBlockedAddress);
  if (blocked) throw new CallbackUrlError(`url host '${url.hostname}' resolves to ${blocked}, a private, loopback or reserved address; webhooks go to public addresses only.`, 'blocked_address');
  return url;
}

async function resolve(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/** The check for a URL whose host is an IP literal (no lookup happens for those). */
export function literalHostBlocked(url: URL, allowPrivate: boolean): boolean {
  const host = hostOf(url);
  return !allowPrivate && isIP(host) !== 0 && isBlockedAddress(host);
}
