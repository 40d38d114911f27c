/**
 * The web pages: sign-up, sign-in, the OAuth consent screen at /oauth/consent, and
 * Settings → Connections (the API key, connected apps). Server-rendered forms, no
 * JavaScript, CSRF-checked; sessions in Postgres (src/web/sessions.ts).
 * @see ../../../shared/spec/service.md "OAuth 2.1 flow", "API keys"
 */
import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { errors as oidcErrors, type Provider } from 'oidc-provider';
import type { Config } from '../core/config.js';
import { createUser, findUserByEmail, isTimeZone } from '../domain/accounts.js';
import { ApiError } from '../core/errors.js';
import { createApiKey, revokeApiKey } from '../domain/api-keys.js';
import { keepClient } from '../auth/oauth/adapter.js';
import { listConnectedApps, revokeConnectedApp } from '../auth/oauth/grants.js';
import { CONSENT_PATH } from './oauth/provider.js';
import { html, page, sendPage, type Html } from './html.js';
import { readForm, safeNext } from './forms.js';
import { hashPassword, passwordProblem, verifyPassword } from '../domain/passwords.js';
import { csrfToken, csrfValid, currentUser, signIn, signOut, type WebUser } from './sessions.js';

export const CONNECTIONS_PATH = '/settings/connections';

export interface WebDeps { db: Knex; config: Config; provider: Provider; cookieKeys: string[]; log: Logger }

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The web pages as koa middleware. */
export function webRoutes(deps: WebDeps): Middleware {
  const { db, config, provider } = deps;
  const router = new Router();
  const ownOrigins = new Set([new URL(config.baseUrl).origin, new URL(config.webOrigin).origin]);

  const csrf = (ctx: Context) => csrfToken(ctx, deps.cookieKeys[0]!);

  /** Refuses a POST from another site or without this browser's CSRF token; returns the form. */
  async function checkedForm(ctx: Context): Promise<Record<string, string> | null> {
    await currentUser(ctx, db);
    const origin = ctx.get('origin');
    const form = await readForm(ctx);
    if ((origin && origin !== 'null' && !ownOrigins.has(origin)) || !csrfValid(ctx, deps.cookieKeys, form.csrf)) {
      sendPage(ctx, 403, page('Please try again', html`<div class="card"><p class="error">This form expired or was sent from another site.</p><p><a href="${ctx.path}">Reload the page</a> and send it again.</p></div>`));
      return null;
    }
    return form;
  }

  const nav = (ctx: Context, user: WebUser | null): Html =>
    user
      ? html`<nav><span><a href="/settings/automations">Automations</a> · <a href="/settings/memory">Memory</a></span><span class="muted">Signed in as ${user.email}</span><form method="post" action="/signout"><input type="hidden" name="csrf" value="${csrf(ctx)}"><button class="secondary" type="submit">Sign out</button></form></nav>`
      : html``;

  // ---- sign-in and sign-up ----------------------------------------------------------

  function signInPage(ctx: Context, status: number, opts: { next: string; email?: string; error?: string; again?: string }): void {
    const signUpLink = config.allowSignUp ? html`<p class="muted">No account yet? <a href="/signup?next=${encodeURIComponent(opts.next)}">Create one</a>.</p>` : html``;
    sendPage(
      ctx,
      status,
      page(
        'Sign in',
        html`<div class="card">
${opts.error ? html`<p class="error">${opts.error}</p>` : ''}
${opts.again ? html`<p class="notice">The app asks you to sign in again to continue.</p>` : ''}
<form method="post" action="/signin">
<input type="hidden" name="csrf" value="${csrf(ctx)}">
<input type="hidden" name="next" value="${opts.next}">
${opts.again ? html`<input type="hidden" name="again" value="${opts.again}">` : ''}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${signUpLink}
</div>`,
      ),
    );
  }

  router.get('/signin', async (ctx) => {
    const next = safeNext(ctx.query.next, CONNECTIONS_PATH);
    // `again`: the OAuth interaction of an app that asked for a fresh sign-in (prompt=login,
    // max_age), so the form shows even to a signed-in browser.
    const again = typeof ctx.query.again === 'string' && ctx.query.again.length <= 100 ? ctx.query.again : undefined;
    const user = await currentUser(ctx, db);
    if (user && !again) return ctx.redirect(next);
    signInPage(ctx, 200, { next, ...(again ? { again } : {}), ...(user ? { email: user.email } : {}) });
  });

  router.post('/signin', async (ctx) => {
    const form = await checkedForm(ctx);
    if (!form) return;
    const next = safeNext(form.next, CONNECTIONS_PATH);
    const email = (form.email ?? '').trim();
    const user = email ? await findUserByEmail(db, email) : undefined;
    const ok = await verifyPassword((user as { password_hash?: string | null } | undefined)?.password_hash, form.password ?? '');
    const again = form.again && form.again.length <= 100 ? form.again : undefined;
    if (!user || !ok) return signInPage(ctx, 401, { next, email, error: 'That email and password do not match an account.', ...(again ? { again } : {}) });
    await signIn(ctx, db, user.id, again ?? null);
    ctx.status = 303;
    ctx.redirect(next);
  });

  function signUpPage(ctx: Context, status: number, opts: { next: string; values?: Record<string, string>; error?: string }): void {
    const v = opts.values ?? {};
    sendPage(
      ctx,
      status,
      page(
        'Create your account',
        html`<div class="card">
${opts.error ? html`<p class="error">${opts.error}</p>` : ''}
<form method="post" action="/signup">
<input type="hidden" name="csrf" value="${csrf(ctx)}">
<input type="hidden" name="next" value="${opts.next}">
<label for="name">Name</label>
<input id="name" name="name" type="text" autocomplete="name" required value="${v.name ?? ''}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${v.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
<label for="timezone">Time zone</label>
<input id="timezone" name="timezone" type="text" value="${v.timezone ?? 'UTC'}" placeholder="Europe/London">
<button type="submit">Create account</button>
</form>
<p class="muted">Have an account? <a href="/signin?next=${encodeURIComponent(opts.next)}">Sign in</a>.</p>
</div>`,
      ),
    );
  }

  const signUpClosed = (ctx: Context) =>
    sendPage(ctx, 403, page('Sign-up is closed', html`<div class="card"><p>This listkeeper does not take new accounts. Ask its operator for one, then <a href="/signin">sign in</a>.</p></div>`));

  router.get('/signup', async (ctx) => {
    if (!config.allowSignUp) return signUpClosed(ctx);
    const next = safeNext(ctx.query.next, CONNECTIONS_PATH);
    if (await currentUser(ctx, db)) return ctx.redirect(next);
    signUpPage(ctx, 200, { next });
  });

  router.post('/signup', async (ctx) => {
    if (!config.allowSignUp) return signUpClosed(ctx);
    const form = await checkedForm(ctx);
    if (!form) return;
    const next = safeNext(form.next, CONNECTIONS_PATH);
    const values = { name: form.name ?? '', email: (form.email ?? '').trim(), timezone: (form.timezone ?? '').trim() || 'UTC' };
    const password = form.password ?? '';
    const problem =
      passwordProblem(password) ??
      (!values.name.trim() ? 'Enter your name.' : null) ??
      (!isTimeZone(values.timezone) ? `'${values.timezone}' is not a time zone; use a name such as Europe/London, or UTC.` : null);
    if (problem) return signUpPage(ctx, 400, { next, values, error: problem });
    let userId: string;
    try {
      const user = await createUser(db, { email: values.email, name: values.name, timezone: values.timezone, passwordHash: await hashPassword(password) });
      userId = user.id;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid') return signUpPage(ctx, 400, { next, values, error: err.message });
      throw err;
    }
    await signIn(ctx, db, userId);
    ctx.status = 303;
    ctx.redirect(next);
  });

  router.post('/signout', async (ctx) => {
    if (!(await checkedForm(ctx))) return;
    await signOut(ctx, db);
    ctx.status = 303;
    ctx.redirect('/signin');
  });

  // ---- the consent screen ---------------------------------------------------------------

  type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

  /** The interaction this browser is in, or null after rendering why there is none. */
  async function interaction(ctx: Context, uid: unknown): Promise<Details | null> {
    let details: Details | null = null;
    try {
      details = await provider.interactionDetails(ctx.req, ctx.res);
    } catch (err) {
      // No interaction cookie, or its interaction is gone (expired, finished, another browser's).
      if (!(err instanceof oidcErrors.SessionNotFound)) throw err;
    }
    if (!details || (typeof uid === 'string' && uid !== '' && uid !== details.uid)) {
      sendPage(
        ctx,
        400,
        page('This request has expired', html`<div class="card"><p>This connection request expired or was already used. Go back to your app and connect again.</p></div>`),
      );
      return null;
    }
    return details;
  }

  async function finish(ctx: Context, result: Parameters<Provider['interactionResult']>[2]): Promise<void> {
    const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(to);
  }

  router.get(CONSENT_PATH, async (ctx) => {
    const details = await interaction(ctx, ctx.query.interaction);
    if (!details) return;
    const user = await currentUser(ctx, db);
    if (!user) return ctx.redirect(`/signin?next=${encodeURIComponent(ctx.url)}`);
    // Signed in on the web pages: that is the sign-in the authorization server asked for,
    // unless the app wants a sign-in newer than its request (prompt=login, or max_age exceeded).
    if (details.prompt.name === 'login' || details.session?.accountId !== user.id) {
      const wantsFresh = details.prompt.name === 'login' && details.prompt.reasons.some((r) => r === 'login_prompt' || r === 'max_age');
      if (wantsFresh && user.freshFor !== details.uid) {
        return ctx.redirect(`/signin?again=${encodeURIComponent(details.uid)}&next=${encodeURIComponent(ctx.url)}`);
      }
      return finish(ctx, { login: { accountId: user.id, ts: Math.floor(user.signedInAt.getTime() / 1000) } });
    }
    if (details.prompt.name !== 'consent') {
      return finish(ctx, { error: 'interaction_required', error_description: `listkeeper cannot resolve the '${details.prompt.name}' prompt.` });
    }
    const client = await provider.Client.find(String(details.params.client_id));
    if (!client) return finish(ctx, { error: 'invalid_client', error_description: 'The app is no longer registered.' });
    const redirectUri = String(details.params.redirect_uri);
    const target = URL.parse(redirectUri);
    const onThisComputer = target !== null && LOOPBACK_HOSTS.has(target.hostname);
    const scopes = new Set(String(details.params.scope ?? '').split(' '));
    const appName = client.clientName ?? null;
    sendPage(
      ctx,
      200,
      page(
        'Connect an app',
        html`${nav(ctx, user)}<div class="card">
<p><strong>${appName ?? 'An app that gave no name'}</strong> wants to use your listkeeper account <strong>${user.email}</strong>.</p>
<p>It will be able to read, add, change and delete your lists and items, as you can. ${scopes.has('email') ? 'It will also see your email address. ' : ''}It stays connected until you disconnect it under Settings → Connections.</p>
<p>If you allow it, you go back to:<br><code>${redirectUri}</code>${onThisComputer ? html`<br><span class="muted">— an app on this computer${target?.port ? `, port ${target.port}` : ''}.</span>` : html`<br><span class="muted">— the site ${target?.host ?? ''}.</span>`}</p>
${appName ? html`` : html`<p class="muted">The app did not give its name; only allow it if you just started connecting an app yourself.</p>`}
<form method="post" action="${CONSENT_PATH}">
<input type="hidden" name="csrf" value="${csrf(ctx)}">
<input type="hidden" name="interaction" value="${details.uid}">
<button type="submit" name="decision" value="allow">Allow</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button>
</form>
<p class="muted">App id: <code>${client.clientId}</code></p>
</div>`,
      ),
    );
  });

  router.post(CONSENT_PATH, async (ctx) => {
    const form = await checkedForm(ctx);
    if (!form) return;
    const details = await interaction(ctx, form.interaction);
    if (!details) return;
    const user = await currentUser(ctx, db);
    if (!user) return ctx.redirect(`/signin?next=${encodeURIComponent(`${CONSENT_PATH}?interaction=${details.uid}`)}`);
    if (details.prompt.name !== 'consent' || details.session?.accountId !== user.id) {
      ctx.status = 303;
      return ctx.redirect(`${CONSENT_PATH}?interaction=${encodeURIComponent(details.uid)}`);
    }
    if (form.decision !== 'allow') {
      return finish(ctx, { error: 'access_denied', error_description: 'The person declined to connect this app.' });
    }
    const clientId = String(details.params.client_id);
    const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId: user.id, clientId });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    await keepClient(db, clientId);
    await finish(ctx, { consent: { grantId } });
  });

  // ---- Settings → Connections -------------------------------------------------------------

  async function connectionsPage(ctx: Context, user: WebUser, opts: { newKey?: string; notice?: string; status?: number } = {}): Promise<void> {
    const key = (await db('api_keys').where({ user_id: user.id }).first('hint', 'created_at')) as { hint: string; created_at: Date } | undefined;
    const apps = await listConnectedApps(db, user.id);
    const token = csrf(ctx);
    const keySection = opts.newKey
      ? html`<p class="notice">Your new API key. Copy it now: it is shown only once${key ? ', and any previous key has stopped working' : ''}.</p>
<code class="key">${opts.newKey}</code>
<p class="muted">Send it as <code>Authorization: Bearer &lt;key&gt;</code> to ${config.baseUrl}/mcp or ${config.baseUrl}/api/v1.</p>`
      : key
        ? html`<p>Your key <code>${key.hint}</code> was created ${key.created_at.toISOString().slice(0, 10)}.</p>`
        : html`<p>You have no API key. Use one for apps that cannot connect with OAuth.</p>`;
    const appItems = apps.map(
      (app) => html`<li><strong>${app.clientName ?? 'An app that gave no name'}</strong><br>
<span class="muted">Connected ${app.approvedAt ? app.approvedAt.toISOString().slice(0, 10) : ''}${app.redirectUris[0] ? ` · returns to ${URL.parse(app.redirectUris[0])?.host ?? app.redirectUris[0]}` : ''}</span>
<form method="post" action="${CONNECTIONS_PATH}/apps/revoke"><input type="hidden" name="csrf" value="${token}"><input type="hidden" name="grant" value="${app.grantId}"><button class="danger" type="submit">Disconnect</button></form></li>`,
    );
    sendPage(
      ctx,
      opts.status ?? 200,
      page(
        'Connections',
        html`${nav(ctx, user)}${opts.notice ? html`<p class="notice">${opts.notice}</p>` : ''}
<section class="card"><h2>API key</h2>
${keySection}
<form method="post" action="${CONNECTIONS_PATH}/api-key"><input type="hidden" name="csrf" value="${token}"><button type="submit">${key ? 'Replace the key' : 'Create a key'}</button></form>
${key ? html`<form method="post" action="${CONNECTIONS_PATH}/api-key/revoke"><input type="hidden" name="csrf" value="${token}"><button class="danger" type="submit">Revoke the key</button></form>` : ''}
</section>
<section class="card"><h2>Connected apps</h2>
${apps.length > 0 ? html`<ul class="apps">${appItems}</ul>` : html`<p>No apps are connected. Apps connect by OAuth from ${config.baseUrl}/mcp.</p>`}
</section>`,
      ),
    );
  }

  async function requireUser(ctx: Context): Promise<WebUser | null> {
    const user = await currentUser(ctx, db);
    if (!user) ctx.redirect(`/signin?next=${encodeURIComponent(CONNECTIONS_PATH)}`);
    return user;
  }

  router.get('/', (ctx) => ctx.redirect(CONNECTIONS_PATH));
  router.get('/settings', (ctx) => ctx.redirect(CONNECTIONS_PATH));

  router.get(CONNECTIONS_PATH, async (ctx) => {
    const user = await requireUser(ctx);
    if (!user) return;
    const done = ctx.query.done;
    const notices: Record<string, string> = { 'key-revoked': 'Your API key was revoked; it answers 401 from now on.', 'app-revoked': 'The app was disconnected; its tokens no longer work.' };
    await connectionsPage(ctx, user, typeof done === 'string' && notices[done] ? { notice: notices[done] } : {});
  });

  router.post(`${CONNECTIONS_PATH}/api-key`, async (ctx) => {
    const form = await checkedForm(ctx);
    if (!form) return;
    const user = await requireUser(ctx);
    if (!user) return;
    const newKey = await createApiKey(db, user.id);
    // Shown in this response only; the page is never cached (sendPage) and a reload shows the hint.
    await connectionsPage(ctx, user, { newKey, status: 201 });
  });

  router.post(`${CONNECTIONS_PATH}/api-key/revoke`, async (ctx) => {
    const form = await checkedForm(ctx);
    if (!form) return;
    const user = await requireUser(ctx);
    if (!user) return;
    await revokeApiKey(db, user.id);
    ctx.status = 303;
    ctx.redirect(`${CONNECTIONS_PATH}?done=key-revoked`);
  });

  router.post(`${CONNECTIONS_PATH}/apps/revoke`, async (ctx) => {
    const form = await checkedForm(ctx);
    if (!form) return;
    const user = await requireUser(ctx);
    if (!user) return;
    await revokeConnectedApp(db, user.id, form.grant ?? '');
    ctx.status = 303;
    ctx.redirect(`${CONNECTIONS_PATH}?done=app-revoked`);
  });

  return router.routes() as Middleware;
}
