/**
 * Webhook callback URLs and SSRF: a callback must be https and resolve only to globally
 * routable addresses, checked when it is registered and again at every delivery, where the
 * connection goes to the very address that was checked (no DNS rebinding between check and
 * connect). `WEBHOOKS_ALLOW_PRIVATE=true` (local development) lifts both rules.
 * @see ../../../shared/spec/service.md "Signed webhook (REST)"
 */
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
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

/**
 * A `lookup` for http(s).request that refuses a host if any of its addresses is blocked, so
 * the socket connects only to an address that passed the check at delivery time.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, verbatim: true, ...(options.family ? { family: options.family } : {}) }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isBlockedAddress(a.address));
      if (list.length === 0 || bad) {
        const error = Object.assign(new Error(`${hostname} resolves to ${bad?.address ?? 'nothing'}, which webhooks may not reach.`), { code: 'EBLOCKEDADDRESS' });
        return callback(error, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** The check for a URL whose host is an IP literal (no lookup happens for those). */
export function literalHostBlocked(url: URL, allowPrivate: boolean): boolean {
  const host = hostOf(url);
  return !allowPrivate && isIP(host) !== 0 && isBlockedAddress(host);
}
