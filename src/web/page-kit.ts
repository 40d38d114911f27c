/**
 * What every web page shares: who is signed in, the CSRF check of a form, the bar at the top,
 * the layout, and calling an operation as the person. Built once per app from its deps, so
 * each page module holds only its own pages.
 */
import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Provider } from 'oidc-provider';
import type { Config } from '../core/config.js';
import type { Services } from '../core/services.js';
import type { OperationContext, OperationId, OpInput, OpOutput } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { call as callOperation } from '../operations/dispatch.js';
import { Html, html, page, sendPage, type PageOptions } from './html.js';
import { readFormParams, safeNext, type FormLimit } from './forms.js';
import { csrfToken, csrfValid, currentUser, type WebUser } from './sessions.js';

export interface WebDeps {
  db: Knex;
  config: Config;
  services: Services;
  cookieKeys: string[];
  log: Logger;
  /** The OAuth authorization server (sign-in and consent hand back to it). */
  provider: Provider;
}

/** A POST from one of our pages: the person and the fields they sent. */
export interface Posted {
  user: WebUser;
  /** The first value of each field. */
  form: Record<string, string>;
  /** Every value, for fields sent more than once (multi-select, check boxes). */
  all: URLSearchParams;
}

/** The sections of the bar at the top; `current` marks where the person is. */
export type Section = 'lists' | 'search' | 'trash' | 'activity' | 'conversation' | 'settings';

/** The pages under Settings; `settings` in ShowOptions marks the one shown. */
export type SettingsPage = 'account' | 'connections' | 'notifications' | 'calendar' | 'automations' | 'memory' | 'data';

export const SETTINGS_PAGES: ReadonlyArray<{ key: SettingsPage; href: string; label: string; about: string }> = [
  { key: 'account', href: '/settings/account', label: 'Account', about: 'Your password, your time zone, and signing out everywhere.' },
  { key: 'connections', href: '/settings/connections', label: 'Connections', about: 'Your API key, the apps you connected and their event subscriptions.' },
  {
    key: 'notifications',
    href: '/settings/notifications',
    label: 'Notifications',
    about: "Reminders and agents' questions by push, email or a topic; quiet hours.",
  },
  {
    key: 'calendar',
    href: '/settings/calendar',
    label: 'Phone and calendar apps',
    about: 'Your task lists in a phone’s task app (CalDAV), and app passwords.',
  },
  { key: 'automations', href: '/settings/automations', label: 'Automations', about: 'Standing orders the service runs on a schedule or when you ask.' },
  { key: 'memory', href: '/settings/memory', label: 'Memory', about: 'What agents read about you before they start.' },
  { key: 'data', href: '/settings/data', label: 'Your data', about: 'Export everything, or import lists from a file.' },
];

export interface ShowOptions extends PageOptions {
  status?: number;
  section?: Section;
  /** A settings page: shows the settings navigation with this one current (and the Settings section). */
  settings?: SettingsPage;
  notice?: string | null;
  error?: string | null;
}

export interface PageKit {
  readonly deps: WebDeps;
  /** The origins of signed file links besides this one (images on the pages load from them). */
  readonly fileOrigins: readonly string[];
  /** This browser's CSRF token, for the hidden field of every form. */
  csrf(ctx: Context): string;
  /** Refuses a POST from another site or without this browser's CSRF token; returns the form. */
  checkedForm(ctx: Context, limit?: FormLimit): Promise<Record<string, string> | null>;
  /** The signed-in person, or null after redirecting to sign-in (which comes back here). */
  signedIn(ctx: Context): Promise<WebUser | null>;
  /** A checked POST by a signed-in person; null when it was answered (refused or sent to sign-in). */
  posted(ctx: Context, limit?: FormLimit): Promise<Posted | null>;
  /** `posted` for a script's fetch: a refusal answers JSON `{error}` (403 for the form, 401 signed out), not a page or a redirect. */
  postedJson(ctx: Context): Promise<Posted | null>;
  /** The signed-in bar at the top of a page (empty when signed out). */
  nav(ctx: Context, user: WebUser | null, section?: Section): Html;
  /** The navigation between the settings pages, `current` marked; `show` adds it for `settings`. */
  settingsNav(current?: SettingsPage): Html;
  /** Sends a signed-in page: the bar, an optional notice or error, the body. */
  show(ctx: Context, user: WebUser, title: string, body: Html, options?: ShowOptions): void;
  /** The operation context of the signed-in person, as REST and MCP build one for a token. */
  asPerson(user: WebUser): OperationContext;
  /** Calls an operation as the person: the same validation, rules and refusals as REST and MCP. */
  call<K extends OperationId>(user: WebUser, operationId: K, input: OpInput<K>): Promise<OpOutput<K>>;
  /** A one-button form that posts `fields` to `action`. */
  button(ctx: Context, action: string, label: string, options?: { kind?: string; fields?: Record<string, string>; title?: string }): Html;
  /** Whether htmx sent this request (it swaps a fragment instead of following a redirect). */
  fromHtmx(ctx: Context): boolean;
  /** Whether a POST came from this site with this browser's CSRF token (for forms the kit does not read, such as multipart ones). */
  fromThisSite(ctx: Context, token: unknown): boolean;
  /** After a form: back to `back` (a same-site path), with 303 so the browser GETs it. */
  redirect(ctx: Context, back: string): void;
}

/**
 * The notice a page shows for a code in its address (`?done=added`), or null: notices come by
 * code, never as text, so a link cannot make a page say words of its own; only the table's own
 * codes count (not `constructor` and the like an object inherits).
 */
export function noticeOf(table: Readonly<Record<string, string>>, code: unknown): string | null {
  return typeof code === 'string' && Object.hasOwn(table, code) ? table[code]! : null;
}

/** The sentence of a refusal an operation answered (the same one REST and MCP send), or rethrows anything else. */
export function refusal(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  throw err;
}

const SECTIONS: Array<[Section, string, string]> = [
  ['lists', '/lists', 'Lists'],
  ['search', '/search', 'Search'],
  ['trash', '/trash', 'Trash'],
  ['activity', '/activity', 'Activity'],
  ['conversation', '/conversation', 'Conversation'],
  ['settings', '/settings', 'Settings'],
];

export function pageKit(deps: WebDeps): PageKit {
  const { db, config } = deps;
  const ownOrigins = new Set([new URL(config.baseUrl).origin, new URL(config.webOrigin).origin]);
  // Signed file links (attachments, upload slots) are on the service's public address.
  const fileOrigins = new URL(config.baseUrl).origin === new URL(config.webOrigin).origin ? [] : [new URL(config.baseUrl).origin];

  const csrf = (ctx: Context) => csrfToken(ctx, deps.cookieKeys[0]!);

  const sameSitePath = (url: string) => pathOnSite(ownOrigins, url);
  const refuseForm = (ctx: Context) => refuseFormPage(ctx, (ctx.get('referer') && sameSitePath(ctx.get('referer'))) || '/lists');

  function fromThisSite(ctx: Context, token: unknown): boolean {
    const origin = ctx.get('origin');
    return !(origin && origin !== 'null' && !ownOrigins.has(origin)) && csrfValid(ctx, deps.cookieKeys, token);
  }

  async function checkedParams(ctx: Context, limit?: FormLimit, refuse: (ctx: Context) => void = refuseForm): Promise<URLSearchParams | null> {
    await currentUser(ctx, db);
    const params = await readFormParams(ctx, limit);
    if (!fromThisSite(ctx, params.get('csrf'))) {
      refuse(ctx);
      return null;
    }
    return params;
  }

  async function checkedForm(ctx: Context, limit?: FormLimit): Promise<Record<string, string> | null> {
    const params = await checkedParams(ctx, limit);
    return params ? firstValues(params) : null;
  }

  async function signedIn(ctx: Context): Promise<WebUser | null> {
    const user = await currentUser(ctx, db);
    if (!user) {
      const back = ctx.method === 'GET' ? ctx.path + (ctx.search || '') : (ctx.get('referer') && sameSitePath(ctx.get('referer'))) || '/lists';
      ctx.status = 303;
      ctx.redirect(`/signin?next=${encodeURIComponent(back)}`);
    }
    return user;
  }

  async function posted(ctx: Context, limit?: FormLimit): Promise<Posted | null> {
    const params = await checkedParams(ctx, limit);
    if (!params) return null;
    const user = await signedIn(ctx);
    return user ? { user, form: firstValues(params), all: params } : null;
  }

  async function postedJson(ctx: Context): Promise<Posted | null> {
    const params = await checkedParams(ctx, 'small', (c) => answerJson(c, 403, 'This form expired or was sent from another site: reload the page.'));
    if (!params) return null;
    const user = await currentUser(ctx, db);
    if (!user) answerJson(ctx, 401, 'You are signed out: sign in again and reload the page.');
    return user ? { user, form: firstValues(params), all: params } : null;
  }

  const nav = (ctx: Context, user: WebUser | null, section?: Section): Html => (user ? topBar(csrf(ctx), user, section) : html``);

  function show(ctx: Context, user: WebUser, title: string, body: Html, options: ShowOptions = {}): void {
    const section = options.section ?? (options.settings ? 'settings' : undefined);
    const banner = html`${options.settings ? settingsNav(options.settings) : ''}${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}`;
    sendPage(
      ctx,
      options.status ?? 200,
      page(title, html`${banner}${body}`, { nav: nav(ctx, user, section), ...(options.wide ? { wide: true } : {}) }),
      fileOrigins,
    );
  }

  const asPerson = (user: WebUser): OperationContext => personContext(deps, user);

  const call = <K extends OperationId>(user: WebUser, operationId: K, input: OpInput<K>): Promise<OpOutput<K>> =>
    callOperation(asPerson(user), operationId, input);

  const button = (ctx: Context, action: string, label: string, options: ButtonOptions = {}): Html => buttonForm(csrf(ctx), action, label, options);

  return {
    deps,
    fileOrigins,
    csrf,
    checkedForm,
    signedIn,
    posted,
    postedJson,
    nav,
    settingsNav,
    show,
    asPerson,
    call,
    button,
    fromHtmx,
    fromThisSite,
    redirect,
  };
}

function fromHtmx(ctx: Context): boolean {
  return ctx.get('hx-request') === 'true';
}

function redirect(ctx: Context, back: string): void {
  ctx.status = 303;
  ctx.redirect(safeNext(back, '/lists'));
}

/** A JSON refusal for a script's fetch. */
function answerJson(ctx: Context, status: number, error: string): void {
  ctx.status = status;
  ctx.body = { error };
}

/** The path and query of `url` when it is on one of `origins`, else null. */
function pathOnSite(origins: ReadonlySet<string>, url: string): string | null {
  const parsed = URL.parse(url);
  return parsed && origins.has(parsed.origin) ? parsed.pathname + parsed.search : null;
}

/** The answer to a form without this browser's CSRF token, or from another site: reload `back` and send again. */
function refuseFormPage(ctx: Context, back: string): void {
  sendPage(
    ctx,
    403,
    page(
      'Please try again',
      html`<div class="card"><p class="error">This form expired or was sent from another site.</p><p><a href="${back}">Reload the page</a> and send it again.</p></div>`,
    ),
  );
}

/** The signed-in bar: the sections (`section` current), who is signed in, and Sign out. */
function topBar(token: string, user: WebUser, section?: Section): Html {
  return html`<nav class="top" aria-label="Main"><span class="links">${SECTIONS.map(
    ([key, href, label]) => html`<a href="${href}"${key === section ? new Html(' aria-current="page"') : ''}>${label}</a>`,
  )}</span><span class="muted">${user.email}</span><form method="post" action="/signout" class="inline-form"><input type="hidden" name="csrf" value="${token}"><button class="secondary small" type="submit">Sign out</button></form></nav>`;
}

function settingsNav(current?: SettingsPage): Html {
  return html`<nav class="settings-nav" aria-label="Settings"><ul>${SETTINGS_PAGES.map(
    ({ key, href, label }) => html`<li><a href="${href}"${key === current ? new Html(' aria-current="page"') : ''}>${label}</a></li>`,
  )}</ul></nav>`;
}

type ButtonOptions = { kind?: string; fields?: Record<string, string>; title?: string };

function buttonForm(token: string, action: string, label: string, options: ButtonOptions): Html {
  const fields = Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${action}" class="inline-form"><input type="hidden" name="csrf" value="${token}">${fields}<button${options.kind ? html` class="${options.kind}"` : ''}${options.title ? html` aria-label="${options.title}"` : ''} type="submit">${label}</button></form>`;
}

/** The operation context of the signed-in person, as REST and MCP build one for a token. */
function personContext(deps: WebDeps, user: WebUser): OperationContext {
  return {
    principal: { userId: user.id, via: 'web', clientName: null, tokenId: `web:${user.id}` },
    db: deps.db,
    config: deps.config,
    services: deps.services,
    log: deps.log,
  };
}

function firstValues(params: URLSearchParams): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of params) if (!(key in fields)) fields[key] = value;
  return fields;
}
