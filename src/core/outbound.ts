/**
 * Requests the service makes itself (image downloads, automation webhooks), guarded against
 * server-side request forgery: https only, and no private, loopback, link-local or other
 * non-public address — checked on the addresses the host name resolves to at connect time,
 * so a name that points at 127.0.0.1 (or is re-pointed after a check) is refused too.
 * `allowPrivate` (the OUTBOUND_ALLOW_PRIVATE setting, for development and tests) lifts both.
 *
 * Webhook callback URLs (below) use the same list: a callback must be https and resolve only to
 * globally routable addresses, checked when it is registered and again at every delivery, where
 * the connection goes to the very address that was checked (no DNS rebinding between check and
 * connect). One guard for every request the service makes.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

/** A request the guard refused, or that failed; the message is one sentence for the caller. */
export class OutboundError extends Error {}

/** The answer was larger than the request's `maxBytes`. */
export class ResponseTooLarge extends OutboundError {}

/**
 * Special-purpose ranges (IANA registries) that are not globally routable. One list for both
 * families: Node's BlockList also matches IPv4-mapped IPv6 addresses (::ffff:127.0.0.1,
 * ::ffff:7f00:1) against the IPv4 rules, so no rule on ::ffff:0:0/96 (which would match every
 * IPv4 address) is needed.
 */
const BLOCKED = new net.BlockList();
const V4: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const V6: [string, number][] = [
  // ::/96 holds ::, ::1 and the old IPv4-compatible form; 64:ff9b::/96 is NAT64 onto IPv4.
  ['::', 96],
  // IPv4-translated addresses (SIIT, RFC 2765: ::ffff:0:a.b.c.d): a translator would carry them to the IPv4 address inside.
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];
for (const [prefix, bits] of V4) BLOCKED.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of V6) BLOCKED.addSubnet(prefix, bits, 'ipv6');

/** True when `address` (an IP literal) is on the public internet; anything else (or not an address) is false. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  return !BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface OutboundOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Largest response body read; more fails the request. */
  maxBytes: number;
  timeoutMs?: number;
  /** Redirects followed (each checked like the first address); default 0. */
  maxRedirects?: number;
  allowPrivate: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  url: string;
}

/** Checks a URL before any request: scheme, and the host when it is an address literal. */
export function checkUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError(`'${raw.slice(0, 200)}' is not an absolute URL.`);
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    throw new OutboundError(`only https URLs are fetched; received ${url.protocol.replace(':', '')}.`);
  // Credentials in a URL would be sent to whoever the host is: refused, whatever the settings.
  if (url.username || url.password) throw new OutboundError('a URL with a user name or password is not fetched; give one without them.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !allowPrivate && !isPublicAddress(host))
    throw new OutboundError(`${host} is a private, loopback or reserved address; only public addresses are fetched.`);
  return url;
}

/**
 * The DNS lookup of a guarded request (pass it as `lookup` with `agent: false`): refuses a name
 * when any address it resolves to is not public, so the socket connects only to an address
 * that passed the check at connect time. A refusal is an OutboundError with code EBLOCKEDADDRESS.
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, verbatim: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const blocked = addresses.find((a) => !isPublicAddress(a.address));
      if (blocked && !allowPrivate) {
        const refusal = Object.assign(
          new OutboundError(`${hostname} is not allowed: it does not resolve to a public address, and only public addresses are reached.`),
          { code: 'EBLOCKEDADDRESS' },
        );
        return callback(refusal, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new OutboundError(`${hostname} has no address.`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** One guarded request; follows up to `maxRedirects` redirects, each checked again. */
export async function outboundRequest(raw: string, options: OutboundOptions): Promise<OutboundResponse> {
  let url = checkUrl(raw, options.allowPrivate);
  for (let hop = 0; ; hop++) {
    const response = await requestOnce(url, options);
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location && hop < (options.maxRedirects ?? 0)) {
      url = checkUrl(new URL(location, url).toString(), options.allowPrivate);
      continue;
    }
    return response;
  }
}

function requestOnce(url: URL, options: OutboundOptions): Promise<OutboundResponse> {
  const client = url.protocol === 'https:' ? https : http;
  const timeoutMs = options.timeoutMs ?? 15000;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: { 'user-agent': 'listkeeper', ...(options.headers ?? {}) },
        lookup: guardedLookup(options.allowPrivate),
        timeout: timeoutMs,
        // A fresh connection each time: a pooled socket would skip the lookup above.
        agent: false,
      },
      (res) => {
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > options.maxBytes) {
          res.destroy();
          return reject(new ResponseTooLarge(`the response is ${declared} bytes; at most ${options.maxBytes} are accepted.`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            res.destroy();
            reject(new ResponseTooLarge(`the response is larger than ${options.maxBytes} bytes, the most accepted.`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: url.toString() }));
        res.on('error', (err) => reject(new OutboundError(`the response broke off: ${err.message}.`)));
      },
    );
    const timer = setTimeout(() => req.destroy(new OutboundError(`no complete answer within ${Math.round(timeoutMs / 1000)} seconds.`)), timeoutMs);
    req.on('timeout', () => req.destroy(new OutboundError(`no answer within ${Math.round(timeoutMs / 1000)} seconds.`)));
    req.on('error', (err) => reject(err instanceof OutboundError ? err : new OutboundError(`the request failed: ${err.message}.`)));
    req.on('close', () => clearTimeout(timer));
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

// Webhook callback URLs.

/** True when `address` (an IP literal) is private, loopback, link-local or otherwise not public. */
export function isBlockedAddress(address: string): boolean {
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
  if (url.username || url.password)
    throw new CallbackUrlError('url must not carry a user name or password; put a token in its path or query instead.', 'invalid_url');
  if (allowPrivate) return url;
  const addresses = await resolve(hostOf(url)).catch(() => null);
  if (!addresses || addresses.length === 0) throw new CallbackUrlError(`url host '${url.hostname}' does not resolve.`, 'unresolvable');
  const blocked = addresses.find(isBlockedAddress);
  if (blocked)
    throw new CallbackUrlError(
      `url host '${url.hostname}' is not allowed: it does not resolve to a public address, and webhooks go to public addresses only.`,
      'blocked_address',
    );
  return url;
}

async function resolve(host: string): Promise<string[]> {
  if (net.isIP(host)) return [host];
  const found = await dns.promises.lookup(host, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/** The check for a URL whose host is an IP literal (no lookup happens for those). */
export function literalHostBlocked(url: URL, allowPrivate: boolean): boolean {
  const host = hostOf(url);
  return !allowPrivate && net.isIP(host) !== 0 && isBlockedAddress(host);
}
