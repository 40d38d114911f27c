/**
 * Webhook callback URLs and SSRF: a callback must be https and resolve only to globally
 * routable addresses, checked when it is registered and again at every delivery, where the
 * connection goes to the very address that was checked (no DNS rebinding between check and
 * connect). `WEBHOOKS_ALLOW_PRIVATE=true` (local development) lifts both rules.
 * @see ../../../shared/spec/service.md "Signed webhook (REST)"
 */
import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Special-purpose ranges (IANA registries) that are not globally routable. IPv4-mapped IPv6
 * addresses (::ffff:a.b.c.d) are checked by BlockList against the IPv4 rules; a rule on
 * ::ffff:0:0/96 itself would match every IPv4 address.
 */
const BLOCKED = new BlockList();
const V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.31.196.0', 24], ['192.52.193.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['192.175.48.0', 24], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const V6: [string, number][] = [
  ['::', 128], ['::1', 128], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['2002::', 16], ['3fff::', 20], ['5f00::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];
for (const [net, prefix] of V4) BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6) BLOCKED.addSubnet(net, prefix, 'ipv6');

/** True when `address` (an IP literal) is private, loopback, link-local or otherwise not public. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
