/** The service's own address, as the configuration works it out (src/core/config.ts). */

/** True when the URL's host is this machine (localhost, 127.0.0.0/8, ::1): a server only its own user reaches. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The URL without trailing slashes. */
export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * BASE_URL when it is not set: the address the server listens on, so the URL it prints is the
 * one the sign-in forms accept. A wildcard address (0.0.0.0, ::) is reached as localhost.
 */
export function defaultBaseUrl(host: string, port: number): string {
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const name = wildcard ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
