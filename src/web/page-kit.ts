import type { Context } from 'koa';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Provider } from 'oidc-provider';
import type { Config } from '../core/config.js';
import { html, page, sendPage, type Html } from './html.js';
import { readForm } from './forms.js';
import { csrfToken, csrfValid, currentUser, type WebUser } from './sessions.js';

export interface WebDeps {
  db: Knex;
  config: Config;
  provider: Provider;
  cookieKeys: string[];
  log: Logger;
}

/** What the sign-in, consent and connections pages share, built once per app from its deps. */
export interface PageKit {
  readonly deps: WebDeps;
  /** This browser's CSRF token, for the hidden field of every form. */
  csrf(ctx: Context): string;
  /** Refuses a POST from another site or without this browser's CSRF token; returns the form. */
  checkedForm(ctx: Context): Promise<Record<string, string> | null>;
  /** The signed-in bar at the top of a page (empty when signed out). */
  nav(ctx: Context, user: WebUser | null): Html;
}

export function pageKit(deps: WebDeps): PageKit {
  const { db, config } = deps;
  const ownOrigins = new Set([new URL(config.baseUrl).origin, new URL(config.webOrigin).origin]);

  const csrf = (ctx: Context) => csrfToken(ctx, deps.cookieKeys[0]!);

  async function checkedForm(ctx: Context): Promise<Record<string, string> | null> {
    await currentUser(ctx, db);
    const origin = ctx.get('origin');
    const form = await readForm(ctx);
    if ((origin && origin !== 'null' && !ownOrigins.has(origin)) || !csrfValid(ctx, deps.cookieKeys, form.csrf)) {
      sendPage(
        ctx,
        403,
        page(
          'Please try again',
          html`<div class="card"><p class="error">This form expired or was sent from another site.</p><p><a href="${ctx.path}">Reload the page</a> and send it again.</p></div>`,
        ),
      );
      return null;
    }
    return form;
  }

  const nav = (ctx: Context, user: WebUser | null): Html =>
    user
      ? html`<nav><span><a href="/settings/automations">Automations</a> · <a href="/settings/memory">Memory</a> · <a href="/settings/data">Your data</a></span><span class="muted">Signed in as ${user.email}</span><form method="post" action="/signout"><input type="hidden" name="csrf" value="${csrf(ctx)}"><button class="secondary" type="submit">Sign out</button></form></nav>`
      : html``;

  return { deps, csrf, checkedForm, nav };
}
