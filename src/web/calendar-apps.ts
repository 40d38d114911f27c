/**
 * Settings → Phone and calendar apps: what a phone's task app (Apple Reminders, Tasks.org
 * with DAVx⁵, Thunderbird) needs to read and edit the person's task lists over CalDAV — the
 * server address, the user name, which lists it will see — and the app passwords it signs in
 * with (create_app_password, revoke_app_password). A new password is shown once.
 * @see docs/caldav.md
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { appPasswords } from '../domain/accounts/app-passwords.js';
import { taskCollections } from '../domain/caldav/objects.js';
import { html } from './html.js';
import { noticeOf, refusal, type PageKit } from './page-kit.js';
import type { WebUser } from './sessions.js';

export const CALENDAR_APPS_PATH = '/settings/calendar';

const NOTICES: Record<string, string> = { revoked: 'The app password was revoked; the app using it is refused from now on.' };

export function registerCalendarApps(router: Router, kit: PageKit): void {
  const { db, config } = kit.deps;

  router.get(CALENDAR_APPS_PATH, showCalendarApps);
  router.post(`${CALENDAR_APPS_PATH}/passwords`, submitNewPassword);
  router.post(`${CALENDAR_APPS_PATH}/passwords/revoke`, submitRevoke);

  async function calendarAppsPage(
    ctx: Context,
    user: WebUser,
    opts: { status?: number; notice?: string | null; error?: string | null; made?: { name: string; password: string } } = {},
  ): Promise<void> {
    const passwords = await appPasswords(db, user.id);
    const lists = await taskCollections(db, user.id);
    const made = opts.made
      ? html`<p class="notice" role="status">The app password for ${opts.made.name}. Type it into the app now: it is shown only once.</p>
<code class="key">${opts.made.password}</code>`
      : '';
    kit.show(
      ctx,
      user,
      'Phone and calendar apps',
      html`<section class="card" aria-labelledby="account-h"><h2 id="account-h">Your task lists on your phone</h2>
<p>Each of your lists that keeps a status and due dates is a task list in a CalDAV app: the app shows, adds, edits, completes and deletes its tasks, and sees what you, your agents and your apps change here.</p>
<dl class="facts"><dt>Server</dt><dd><code>${config.baseUrl}</code> (or <code>${config.baseUrl}/dav/</code> where an app asks for the full address)</dd>
<dt>User name</dt><dd><code>${user.email}</code></dd>
<dt>Password</dt><dd>an app password from below (your API key works too)</dd>
<dt>Lists it will show</dt><dd>${lists.map((l) => l.name).join(', ') || 'none yet: make a list with the tasks template'}</dd></dl>
<p class="muted">DAVx⁵ (with Tasks.org or jtx Board): "Login with URL and user name". iPhone and iPad: Settings → Calendar (iOS 18: Apps → Calendar) → Calendar Accounts → Add Account → Other → Add CalDAV Account; the lists show in Reminders. Thunderbird: New Calendar → On the Network.</p>
</section>
<section class="card" aria-labelledby="passwords-h"><h2 id="passwords-h">App passwords</h2>
${made}
${
  passwords.length
    ? html`<ul class="apps">${passwords.map(
        (p) =>
          html`<li><strong>${p.name}</strong> <span class="muted">· <code>${p.hint}</code> · made ${p.createdAt.toISOString().slice(0, 10)} · ${p.lastUsedAt ? `last used ${p.lastUsedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'not used yet'}</span> ${kit.button(ctx, `${CALENDAR_APPS_PATH}/passwords/revoke`, 'Revoke', { kind: 'danger small', fields: { id: p.id }, title: `Revoke the app password for ${p.name}` })}</li>`,
      )}</ul>`
    : html`<p>No app passwords yet.</p>`
}
<form method="post" action="${CALENDAR_APPS_PATH}/passwords"><input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<label for="password-name">What it is for</label>
<input id="password-name" name="name" required maxlength="100" placeholder="Phone">
<button type="submit">Make an app password</button>
</form>
</section>`,
      { settings: 'calendar', status: opts.status ?? 200, notice: opts.notice ?? null, error: opts.error ?? null },
    );
  }

  async function showCalendarApps(ctx: Context): Promise<void> {
    const user = await kit.signedIn(ctx);
    if (!user) return;
    await calendarAppsPage(ctx, user, { notice: noticeOf(NOTICES, ctx.query.done) });
  }

  async function submitNewPassword(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    try {
      const made = await kit.call(got.user, 'create_app_password', { name: got.form.name ?? '' });
      // Shown in this answer only; pages are never cached, and a reload shows the hint.
      await calendarAppsPage(ctx, got.user, { status: 201, made });
    } catch (err) {
      const refused = refusal(err);
      await calendarAppsPage(ctx, got.user, { status: refused.status, error: refused.message });
    }
  }

  async function submitRevoke(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    try {
      await kit.call(got.user, 'revoke_app_password', { id: got.form.id ?? '' });
    } catch (err) {
      const refused = refusal(err);
      return calendarAppsPage(ctx, got.user, { status: refused.status, error: refused.message });
    }
    kit.redirect(ctx, `${CALENDAR_APPS_PATH}?done=revoked`);
  }
}
