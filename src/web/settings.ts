/**
 * Settings (the index of the settings pages) and Settings → Account: the person's name and
 * email, a new password, the time zone, and signing out of every browser. The changes are the
 * person's own operations (change_password, set_time_zone, end_sessions); this browser's
 * session and the sign-in throttle stay the page's, as on the sign-in page.
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { getUser, timeZones } from '../domain/accounts/accounts.js';
import { signInThrottle } from '../domain/accounts/sign-in-throttle.js';
import { html } from './html.js';
import { noticeOf, refusal, SETTINGS_PAGES, type PageKit } from './page-kit.js';
import { signIn, signOut, type WebUser } from './sessions.js';

export const SETTINGS_PATH = '/settings';
export const ACCOUNT_PATH = '/settings/account';

/** The notices the account page shows after a change, by code (never text from the link). */
const NOTICES: Record<string, string> = {
  password: 'Your password was changed. Other browsers were signed out; this one stays signed in.',
  timezone: 'Your time zone was saved.',
};

/** The routes of the settings index and the account page: small handlers over the page kit. */
export function registerSettings(router: Router, kit: PageKit): void {
  router.get(SETTINGS_PATH, (ctx) => showIndex(kit, ctx));
  router.get(ACCOUNT_PATH, (ctx) => showAccount(kit, ctx));
  router.post(`${ACCOUNT_PATH}/password`, (ctx) => submitPassword(kit, ctx));
  router.post(`${ACCOUNT_PATH}/timezone`, (ctx) => submitTimeZone(kit, ctx));
  router.post(`${ACCOUNT_PATH}/sign-out-everywhere`, (ctx) => submitSignOutEverywhere(kit, ctx));
}

async function showIndex(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (!user) return;
  const entries = SETTINGS_PAGES.map(
    ({ href, label, about }) => html`<li><a href="${href}"><strong>${label}</strong></a><br><span class="muted">${about}</span></li>`,
  );
  kit.show(ctx, user, 'Settings', html`<div class="card"><ul class="settings-index">${entries}</ul></div>`, { section: 'settings' });
}

async function accountPage(kit: PageKit, ctx: Context, user: WebUser, opts: { status?: number; notice?: string; error?: string } = {}): Promise<void> {
  const { timezone } = await getUser(kit.deps.db, user.id);
  const csrf = html`<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">`;
  const zones = timeZones();
  if (!zones.includes(timezone)) zones.unshift(timezone);
  kit.show(
    ctx,
    user,
    'Account',
    html`<section class="card" aria-labelledby="you-h"><h2 id="you-h">You</h2>
<dl class="facts"><dt>Name</dt><dd>${user.name}</dd><dt>Email</dt><dd>${user.email}</dd></dl>
</section>
<section class="card" aria-labelledby="password-h"><h2 id="password-h">Change your password</h2>
<form method="post" action="${ACCOUNT_PATH}/password">${csrf}
<input type="hidden" name="username" autocomplete="username" value="${user.email}">
<label for="current-password">Current password</label>
<input id="current-password" name="current" type="password" autocomplete="current-password" required>
<label for="new-password">New password</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="10" aria-describedby="new-password-help">
<p class="muted" id="new-password-help">At least 10 characters. Other browsers are signed out; apps you connected and your API key keep working.</p>
<button type="submit">Change password</button>
</form></section>
<section class="card" aria-labelledby="timezone-h"><h2 id="timezone-h">Time zone</h2>
<form method="post" action="${ACCOUNT_PATH}/timezone">${csrf}
<label for="timezone">Your time zone</label>
<select id="timezone" name="timezone" aria-describedby="timezone-help">${zones.map((zone) => html`<option${zone === timezone ? html` selected` : ''}>${zone}</option>`)}</select>
<p class="muted" id="timezone-help">Dates, due times, reminders, activity and automations follow it.</p>
<button type="submit">Save time zone</button>
</form></section>
<section class="card" aria-labelledby="everywhere-h"><h2 id="everywhere-h">Sign out everywhere</h2>
<p>Ends your session in every browser, this one included. Apps you connected and your API key are not affected: disconnect them under <a href="/settings/connections">Connections</a>.</p>
${kit.button(ctx, `${ACCOUNT_PATH}/sign-out-everywhere`, 'Sign out everywhere', { kind: 'danger' })}
</section>`,
    { settings: 'account', status: opts.status ?? 200, notice: opts.notice ?? null, error: opts.error ?? null },
  );
}

async function showAccount(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (!user) return;
  const done = noticeOf(NOTICES, ctx.query.done);
  await accountPage(kit, ctx, user, done ? { notice: done } : {});
}

/**
 * A new password ends every session (change_password), this browser's too; this browser then
 * signs in again with a new session token, so the person who just proved the current
 * password stays signed in here while every other browser is out. A wrong current password
 * (refused on `current`) counts against the sign-in throttle, as a failed sign-in does.
 */
async function submitPassword(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  const throttle = signInThrottle(kit.deps.db, kit.deps.config.signInMaxFailures);
  const wait = await throttle.wait(user.email, ctx.ip);
  if (wait > 0) {
    ctx.set('Retry-After', String(wait));
    return accountPage(kit, ctx, user, { status: 429, error: `Too many wrong passwords: try again in ${Math.ceil(wait / 60)} minutes.` });
  }
  try {
    await kit.call(user, 'change_password', { current: form.current ?? '', password: form.password ?? '' });
  } catch (err) {
    const refused = refusal(err);
    if (refused.extra.field === 'current') await throttle.failed(user.email, ctx.ip);
    return accountPage(kit, ctx, user, { status: refused.status, error: refused.message });
  }
  await signIn(ctx, kit.deps.db, user.id);
  kit.redirect(ctx, `${ACCOUNT_PATH}?done=password`);
}

async function submitTimeZone(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  try {
    await kit.call(got.user, 'set_time_zone', { timezone: got.form.timezone ?? '' });
  } catch (err) {
    const refused = refusal(err);
    return accountPage(kit, ctx, got.user, { status: refused.status, error: refused.message });
  }
  kit.redirect(ctx, `${ACCOUNT_PATH}?done=timezone`);
}

async function submitSignOutEverywhere(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  await kit.call(got.user, 'end_sessions', {});
  await signOut(ctx, kit.deps.db);
  kit.redirect(ctx, '/signin');
}
