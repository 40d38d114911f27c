/**
 * Driving the OAuth flow over plain HTTP, without a browser: a cookie jar that honours
 * paths and expiry, form scraping for the sign-in and consent pages, PKCE, registration and
 * the token endpoint. The end-to-end test (test/auth/oauth-e2e.test.ts) uses a real
 * Chromium instead; the security tests use this to try what a browser would not.
 */
import { createHash, randomBytes } from 'node:crypto';

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expires: number | null;
}

/** A minimal browser: cookies, manual redirects. */
export class HttpBrowser {
  private cookies: StoredCookie[] = [];

  constructor(readonly baseUrl: string) {}

  /** One request to the service; Set-Cookie is stored, redirects are not followed. */
  async request(
    pathOrUrl: string,
    init: { method?: string; form?: Record<string, string> | URLSearchParams; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const url = new URL(pathOrUrl, this.baseUrl);
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.cookieHeader(url.pathname);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const res = await fetch(url, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) this.store(line);
    return res;
  }

  /**
   * Follows redirects within the service until a page answers, or a redirect leaves the
   * service (to the client's redirect URI): returns that final response and where it points.
   */
  async follow(
    pathOrUrl: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<{ res: Response; url: string; location: string | null }> {
    let url = new URL(pathOrUrl, this.baseUrl).href;
    let res = await this.request(url, init);
    for (let hops = 0; hops < 10; hops++) {
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { res, url, location: null };
      const next = new URL(location, url);
      if (next.origin !== new URL(this.baseUrl).origin) return { res, url, location: next.href };
      url = next.href;
      res = await this.request(url);
    }
    throw new Error(`too many redirects from ${pathOrUrl}`);
  }

  /** The Cookie header this browser sends to a path (for requests made by other means, a streamed upload say). */
  cookiesFor(path: string): string {
    return this.cookieHeader(path);
  }

  /** Whether a cookie of that name is held (for any path). */
  has(name: string): boolean {
    return this.cookies.some((c) => c.name === name);
  }

  private cookieHeader(path: string): string {
    const now = Date.now();
    this.cookies = this.cookies.filter((c) => c.expires === null || c.expires > now);
    return this.cookies
      .filter((c) => path === c.path || path.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/')
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private store(line: string): void {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    let path = '/';
    let expires: number | null = null;
    for (const attr of attrs) {
      const [k, v = ''] = attr.split('=');
      const key = k!.toLowerCase();
      if (key === 'path') path = v || '/';
      if (key === 'expires') expires = Date.parse(v);
      if (key === 'max-age') expires = Date.now() + Number(v) * 1000;
    }
    this.cookies = this.cookies.filter((c) => !(c.name === name && c.path === path));
    if (value !== '' && (expires === null || expires > Date.now())) this.cookies.push({ name, value, path, expires });
  }
}

/** A browser signed in on the sign-in page (as a person does it: the page's CSRF token, then the form); fails unless it signs in. */
export async function signInOverHttp(baseUrl: string, email: string, password: string, next = '/lists'): Promise<HttpBrowser> {
  const browser = new HttpBrowser(baseUrl);
  const page = await (await browser.request('/signin')).text();
  const res = await browser.request('/signin', { form: { csrf: formValue(page, 'csrf'), next, email, password } });
  if (res.status !== 303) throw new Error(`signing in as ${email} answered ${res.status}, not 303`);
  return browser;
}

/** The value of a hidden or text input in a page. */
export function formValue(page: string, name: string): string {
  const match = new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(page);
  if (!match) throw new Error(`no field ${name} in the page:\n${page.slice(0, 2000)}`);
  return match[1]!
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a public client by RFC 7591; returns the response and its JSON. */
export async function register(baseUrl: string, metadata: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...metadata }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A registered client with one loopback redirect URI. */
export async function registerClient(
  baseUrl: string,
  name = 'Test Agent',
  redirectUri = 'http://127.0.0.1:53682/callback',
): Promise<{ clientId: string; redirectUri: string }> {
  const { status, body } = await register(baseUrl, { client_name: name, redirect_uris: [redirectUri] });
  if (status !== 201) throw new Error(`registration failed: ${status} ${JSON.stringify(body)}`);
  return { clientId: String(body.client_id), redirectUri };
}

/** The authorization URL for a code flow request; `params` may override or delete (undefined) any parameter. */
export function authorizeUrl(
  baseUrl: string,
  client: { clientId: string; redirectUri: string },
  challenge: string,
  params: Record<string, string | undefined> = {},
): string {
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    scope: 'openid email offline_access',
    resource: baseUrl,
    ...params,
  };
  const url = new URL(`${baseUrl}/oauth/authorize`);
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

/**
 * Runs the browser part of the flow: follows the authorization URL, signs in if asked,
 * answers the consent screen, and returns where the service finally sends the browser.
 */
export async function authorizeInBrowser(
  browser: HttpBrowser,
  url: string,
  person: { email: string; password: string },
  decision: 'allow' | 'deny' = 'allow',
): Promise<{ location: string | null; res: Response; page: string }> {
  let step = await browser.follow(url);
  for (let i = 0; i < 4 && !step.location; i++) {
    const page = await step.res.text();
    const path = new URL(step.url).pathname;
    if (step.res.status !== 200) return { location: null, res: step.res, page };
    if (path === '/signin') {
      const again: Record<string, string> = /name="again"/.test(page) ? { again: formValue(page, 'again') } : {};
      step = await browser.follow('/signin', {
        form: { csrf: formValue(page, 'csrf'), next: formValue(page, 'next'), ...again, email: person.email, password: person.password },
      });
    } else if (path === '/oauth/consent') {
      step = await browser.follow('/oauth/consent', { form: { csrf: formValue(page, 'csrf'), interaction: formValue(page, 'interaction'), decision } });
    } else {
      return { location: null, res: step.res, page };
    }
  }
  return { location: step.location, res: step.res, page: '' };
}

/** A new client's authorization code, with what it took: the client, the PKCE verifier, the browser and where it was sent. */
export interface AuthorizedCode {
  client: { clientId: string; redirectUri: string };
  verifier: string;
  code: string;
  /** The redirect to the client that carried the code. */
  location: string;
  browser: HttpBrowser;
}

/**
 * Registers a client (`name`, `redirectUri`) and authorizes it in a browser that signs in as
 * `person` and allows it; `params` override or delete parameters of the authorization URL.
 */
export async function authorizedCode(
  baseUrl: string,
  person: { email: string; password: string },
  options: { name?: string; redirectUri?: string; params?: Record<string, string | undefined> } = {},
): Promise<AuthorizedCode> {
  const client = await registerClient(baseUrl, options.name, options.redirectUri);
  const { verifier, challenge } = pkce();
  const browser = new HttpBrowser(baseUrl);
  const { location } = await authorizeInBrowser(browser, authorizeUrl(baseUrl, client, challenge, options.params), person);
  return { client, verifier, code: codeFrom(location), location: location!, browser };
}

/** Redeems an authorization code at the token endpoint, as its client does. */
export function redeemCode(
  baseUrl: string,
  got: Pick<AuthorizedCode, 'client' | 'code' | 'verifier'>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return tokenRequest(baseUrl, {
    grant_type: 'authorization_code',
    code: got.code,
    code_verifier: got.verifier,
    client_id: got.client.clientId,
    redirect_uri: got.client.redirectUri,
  });
}

/**
 * An app connected the way a person connects one: registered, authorized in a browser that
 * signs in and allows it, and its code exchanged; answers the client and the token response.
 */
export async function connectApp(
  baseUrl: string,
  person: { email: string; password: string },
  name: string,
): Promise<{ client: AuthorizedCode['client']; token: { status: number; body: Record<string, unknown> } }> {
  const got = await authorizedCode(baseUrl, person, { name });
  return { client: got.client, token: await redeemCode(baseUrl, got) };
}

/** POSTs to the token endpoint. */
export async function tokenRequest(baseUrl: string, params: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The `code` of a redirect to the client, or throws with what came instead. */
export function codeFrom(location: string | null): string {
  if (!location) throw new Error('no redirect to the client');
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}
