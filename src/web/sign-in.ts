/** Sign-in, sign-up and sign-out: the pages that start and end a web session. */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { checkEmail, createUser, findUserByEmail, isTimeZone } from '../domain/accounts/accounts.js';
import { ApiError } from '../core/errors.js';
import { LISTS_PATH } from './lists.js';
import { html, page, sendPage } from './html.js';
import { safeNext } from './forms.js';
import type { PageKit } from './page-kit.js';
import { hashPassword, passwordProblem, verifyPassword } from '../domain/accounts/passwords.js';
import { signInThrottle } from '../domain/accounts/sign-in-throttle.js';
import { currentUser, signIn, signOut } from './sessions.js';

/** The sign-in, sign-up and sign-out routes: small handlers over the page kit. */
export function registerSignIn(router: Router, kit: PageKit): void {
  router.get('/signin', (ctx) => showSignIn(kit, ctx));
  router.post('/signin', (ctx) => submitSignIn(kit, ctx));
  router.get('/signup', (ctx) => showSignUp(kit, ctx));
  router.post('/signup', (ctx) => submitSignUp(kit, ctx));
  router.post('/signout', (ctx) => submitSignOut(kit, ctx));
}

function signInPage(kit: PageKit, ctx: Context, status: number, opts: { next: string; email?: string; error?: string; again?: string }): void {
  const signUpLink = kit.deps.config.allowSignUp
    ? html`<p class="muted">No account yet? <a href="/signup?next=${encodeURIComponent(opts.next)}">Create one</a>.</p>`
    : html``;
  sendPage(
    ctx,
    status,
    page(
      'Sign in',
      html`<div class="card">
${opts.error ? html`<p class="error">${opts.error}</p>` : ''}
${opts.again ? html`<p class="notice">The app asks you to sign in again to continue.</p>` : ''}
<form method="post" action="/signin">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
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

async function showSignIn(kit: PageKit, ctx: Context): Promise<void> {
  const next = safeNext(ctx.query.next, LISTS_PATH);
  // `again`: the OAuth interaction of an app that asked for a fresh sign-in (prompt=login,
  // max_age), so the form shows even to a signed-in browser.
  const again = typeof ctx.query.again === 'string' && ctx.query.again.length <= 100 ? ctx.query.again : undefined;
  const user = await currentUser(ctx, kit.deps.db);
  if (user && !again) return ctx.redirect(next);
  signInPage(kit, ctx, 200, { next, ...(again ? { again } : {}), ...(user ? { email: user.email } : {}) });
}

async function submitSignIn(kit: PageKit, ctx: Context): Promise<void> {
  const form = await kit.checkedForm(ctx);
  if (!form) return;
  const next = safeNext(form.next, LISTS_PATH);
  const email = (form.email ?? '').trim();
  const again = form.again && form.again.length <= 100 ? form.again : undefined;
  const throttle = signInThrottle(kit.deps.db, kit.deps.config.signInMaxFailures);
  const wait = await throttle.wait(email, ctx.ip);
  if (wait > 0) {
    ctx.set('Retry-After', String(wait));
    return signInPage(kit, ctx, 429, {
      next,
      email,
      error: `Too many failed sign-ins: try again in ${Math.ceil(wait / 60)} minutes.`,
      ...(again ? { again } : {}),
    });
  }
  const user = email ? await findUserByEmail(kit.deps.db, email) : undefined;
  const ok = await verifyPassword((user as { password_hash?: string | null } | undefined)?.password_hash, form.password ?? '');
  if (!user || !ok) {
    await throttle.failed(email, ctx.ip);
    return signInPage(kit, ctx, 401, { next, email, error: 'That email and password do not match an account.', ...(again ? { again } : {}) });
  }
  await throttle.succeeded(email);
  await signIn(ctx, kit.deps.db, user.id, again ?? null);
  ctx.status = 303;
  ctx.redirect(next);
}

function signUpPage(kit: PageKit, ctx: Context, status: number, opts: { next: string; values?: Record<string, string>; error?: string }): void {
  const v = opts.values ?? {};
  sendPage(
    ctx,
    status,
    page(
      'Create your account',
      html`<div class="card">
${opts.error ? html`<p class="error">${opts.error}</p>` : ''}
<form method="post" action="/signup">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
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

function signUpClosed(ctx: Context): void {
  sendPage(
    ctx,
    403,
    page(
      'Sign-up is closed',
      html`<div class="card"><p>This listkeeper does not take new accounts. Ask its operator for one, then <a href="/signin">sign in</a>.</p></div>`,
    ),
  );
}

async function showSignUp(kit: PageKit, ctx: Context): Promise<void> {
  if (!kit.deps.config.allowSignUp) return signUpClosed(ctx);
  const next = safeNext(ctx.query.next, LISTS_PATH);
  if (await currentUser(ctx, kit.deps.db)) return ctx.redirect(next);
  signUpPage(kit, ctx, 200, { next });
}

async function submitSignUp(kit: PageKit, ctx: Context): Promise<void> {
  if (!kit.deps.config.allowSignUp) return signUpClosed(ctx);
  const form = await kit.checkedForm(ctx);
  if (!form) return;
  const next = safeNext(form.next, LISTS_PATH);
  const values = { name: form.name ?? '', email: (form.email ?? '').trim(), timezone: (form.timezone ?? '').trim() || 'UTC' };
  const password = form.password ?? '';
  const problem =
    passwordProblem(password) ??
    (!values.name.trim() ? 'Enter your name.' : null) ??
    (!isTimeZone(values.timezone) ? `'${values.timezone}' is not a time zone; use a name such as Europe/London, or UTC.` : null);
  if (problem) return signUpPage(kit, ctx, 400, { next, values, error: problem });
  try {
    checkEmail(values.email);
  } catch (err) {
    if (err instanceof ApiError) return signUpPage(kit, ctx, 400, { next, values, error: err.message });
    throw err;
  }
  const throttle = signInThrottle(kit.deps.db, kit.deps.config.signInMaxFailures);
  const wait = await throttle.wait(values.email, ctx.ip);
  if (wait > 0) {
    ctx.set('Retry-After', String(wait));
    return signUpPage(kit, ctx, 429, { next, values, error: `Too many attempts: try again in ${Math.ceil(wait / 60)} minutes.` });
  }
  // A new email gets its account and the browser is signed in to it. A taken one is left as it
  // is and signs no one in: the page says so and points to sign-in. That tells whether an
  // email has an account, which a sign-up without email confirmation cannot hide anyway (the
  // new account works at once); every attempt counts against the sign-in throttle of the email
  // and of the address, which bounds how fast anyone learns it (SECURITY.md, "Sign-up").
  await throttle.failed(values.email, ctx.ip);
  const taken = () =>
    signUpPage(kit, ctx, 409, {
      next,
      values,
      error: 'That email already has an account: sign in with its password, or sign up with another email.',
    });
  if (await findUserByEmail(kit.deps.db, values.email)) return taken();
  let user: { id: string };
  try {
    user = await createUser(kit.deps.db, { email: values.email, name: values.name, timezone: values.timezone, passwordHash: await hashPassword(password) });
  } catch (err) {
    // Made by a parallel sign-up in the meantime.
    if (err instanceof ApiError && err.extra.field === 'email') return taken();
    throw err;
  }
  await signIn(ctx, kit.deps.db, user.id);
  ctx.status = 303;
  ctx.redirect(next);
}

async function submitSignOut(kit: PageKit, ctx: Context): Promise<void> {
  if (!(await kit.checkedForm(ctx))) return;
  await signOut(ctx, kit.deps.db);
  ctx.status = 303;
  ctx.redirect('/signin');
}
