/**
 * Settings → Notifications: how a task's reminder and an agent's question reach the person —
 * Web Push to the browsers they turn it on in (src/web/static/app.js subscribes this browser
 * to the service's VAPID key), email, an ntfy-style topic — with quiet hours, the note left
 * when a channel was dropped, and the latest deliveries. The writes are the person's own
 * operations (set_notification_settings, add_push_subscription, remove_push_subscription).
 * The one-click unsubscribe of an email (RFC 8058) is here too: its signed token is the
 * permission, so it needs no session.
 * @see docs/notifications.md
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { getUser } from '../domain/accounts/accounts.js';
import { recentDeliveries } from '../domain/notifications/deliveries.js';
import { notificationKeys, readUnsubscribeToken } from '../domain/notifications/keys.js';
import { pushSubscriptions, readSettings, type NotificationSettings } from '../domain/notifications/settings.js';
import { readFormParams } from './forms.js';
import { Html, html, page, sendPage } from './html.js';
import { noticeOf, refusal, type PageKit } from './page-kit.js';
import type { WebUser } from './sessions.js';

export const NOTIFICATIONS_PATH = '/settings/notifications';
const UNSUBSCRIBE_PATH = '/notifications/unsubscribe';

const NOTICES: Record<string, string> = {
  saved: 'Your notification settings were saved.',
  'push-on': 'This browser takes pushes now.',
  'push-removed': 'That browser takes no more pushes.',
};

const KINDS = { reminder: 'task reminders', question: 'questions from your agents' } as const;

export function registerNotifications(router: Router, kit: PageKit): void {
  const { db, config } = kit.deps;

  router.get(NOTIFICATIONS_PATH, showNotifications);
  router.post(NOTIFICATIONS_PATH, submitSettings);
  router.post(`${NOTIFICATIONS_PATH}/push`, submitPushSubscription);
  router.post(`${NOTIFICATIONS_PATH}/push/remove`, submitPushRemoval);
  router.get(UNSUBSCRIBE_PATH, showUnsubscribe);
  router.post(UNSUBSCRIBE_PATH, submitUnsubscribe);

  async function notificationsPage(ctx: Context, user: WebUser, opts: { status?: number; notice?: string | null; error?: string | null } = {}): Promise<void> {
    const settings = await readSettings(db, user.id);
    const browsers = await pushSubscriptions(db, user.id);
    const deliveries = await recentDeliveries(db, user.id);
    const csrf = html`<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">`;
    const notes = Object.values(settings.notes).filter((n): n is string => n !== null);
    kit.show(
      ctx,
      user,
      'Notifications',
      html`${notes.map((note) => html`<p class="error" role="alert">${note}</p>`)}
<p class="muted">A task's reminder, and an agent's question that waits on your answer, reach you by the channels you turn on here.</p>
${pushSection(ctx, browsers)}
<form method="post" action="${NOTIFICATIONS_PATH}">${csrf}
${channelsSection(settings, user)}
<section class="card" aria-labelledby="quiet-h"><h2 id="quiet-h">Quiet hours</h2>
<p class="muted">Notifications that come in these hours wait until they end (in your time zone). Leave both empty for none.</p>
<label for="quiet-start">From</label><input id="quiet-start" name="quietStart" type="time" value="${settings.quietStart ?? ''}">
<label for="quiet-end">Until</label><input id="quiet-end" name="quietEnd" type="time" value="${settings.quietEnd ?? ''}">
</section>
<p><button type="submit">Save notification settings</button></p>
</form>
<section class="card" aria-labelledby="recent-h"><h2 id="recent-h">Latest notifications</h2>
${
  deliveries.length
    ? html`<ul class="deliveries">${deliveries.map(
        (d) =>
          html`<li><strong>${d.message.title}</strong> <span class="muted">· ${d.channel} · ${d.status}${d.last_error && d.status !== 'sent' ? ` (${d.last_error})` : ''} · ${d.created_at.toISOString().slice(0, 16).replace('T', ' ')} UTC</span></li>`,
      )}</ul>`
    : html`<p>None yet.</p>`
}
</section>`,
      { settings: 'notifications', status: opts.status ?? 200, notice: opts.notice ?? null, error: opts.error ?? null },
    );
  }

  function pushSection(ctx: Context, browsers: Awaited<ReturnType<typeof pushSubscriptions>>): Html {
    return html`<section class="card" aria-labelledby="push-h"><h2 id="push-h">Push to this browser</h2>
<p class="muted">Shows notifications on this device, even with listkeeper closed; a click opens the item. Installed as an app, it works the same.</p>
<div class="push-setup" data-vapid-key="${notificationKeys(config.dataDir).vapidPublicKey}" data-action="${NOTIFICATIONS_PATH}/push">
<button type="button" hidden>Turn on push in this browser</button>
<p role="status" class="muted"><noscript>Turning push on needs JavaScript in this browser.</noscript></p>
</div>
${
  browsers.length
    ? html`<ul class="apps">${browsers.map(
        (b) =>
          html`<li><strong>${b.browser ?? 'A browser'}</strong> <span class="muted">· since ${b.createdAt.toISOString().slice(0, 10)}</span> ${kit.button(ctx, `${NOTIFICATIONS_PATH}/push/remove`, 'Remove', { kind: 'danger small', fields: { id: b.id }, title: `Remove ${b.browser ?? 'this browser'}` })}</li>`,
      )}</ul>`
    : html`<p>No browser takes pushes yet.</p>`
}
</section>`;
  }

  function channelsSection(settings: NotificationSettings, user: WebUser): Html {
    const checked = (on: boolean) => (on ? new Html(' checked') : '');
    return html`<section class="card" aria-labelledby="channels-h"><h2 id="channels-h">Channels</h2>
<p><label><input type="checkbox" name="pushOn"${checked(settings.pushOn)}> Push to the browsers above</label></p>
<p><label><input type="checkbox" name="emailOn"${checked(settings.emailOn)}> Email</label>${config.smtp ? '' : html` <span class="muted">(this service has no mail server: its operator sets SMTP_URL)</span>`}</p>
<label for="email-address">Email address</label>
<input id="email-address" name="emailAddress" type="email" value="${settings.emailAddress ?? ''}" placeholder="${user.email}" aria-describedby="email-help">
<p class="muted" id="email-help">Empty: your account's address, ${user.email}.</p>
<fieldset><legend>Emails about</legend>
${(Object.entries(KINDS) as [keyof typeof KINDS, string][]).map(
  ([kind, label]) =>
    html`<label><input type="checkbox" name="${kind === 'reminder' ? 'emailReminders' : 'emailQuestions'}"${checked(settings.emailKinds[kind])}> ${label}</label> `,
)}
</fieldset>
<p><label><input type="checkbox" name="topicOn"${checked(settings.topicOn)}> A topic (ntfy or another service that takes a POST)</label></p>
<label for="topic-url">Topic URL</label>
<input id="topic-url" name="topicUrl" type="url" value="${settings.topicUrl ?? ''}" placeholder="https://ntfy.sh/your-secret-topic">
</section>`;
  }

  async function showNotifications(ctx: Context): Promise<void> {
    const user = await kit.signedIn(ctx);
    if (!user) return;
    await notificationsPage(ctx, user, { notice: noticeOf(NOTICES, ctx.query.done) });
  }

  async function submitSettings(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { form } = got;
    try {
      await kit.call(got.user, 'set_notification_settings', {
        pushOn: form.pushOn === 'on',
        emailOn: form.emailOn === 'on',
        emailAddress: form.emailAddress ?? '',
        emailReminders: form.emailReminders === 'on',
        emailQuestions: form.emailQuestions === 'on',
        topicOn: form.topicOn === 'on',
        topicUrl: form.topicUrl ?? '',
        quietStart: form.quietStart ?? '',
        quietEnd: form.quietEnd ?? '',
      });
    } catch (err) {
      const refused = refusal(err);
      return notificationsPage(ctx, got.user, { status: refused.status, error: refused.message });
    }
    kit.redirect(ctx, `${NOTIFICATIONS_PATH}?done=saved`);
  }

  /** The subscription this browser's script made (app.js), as JSON `{ok}` or `{error}`. */
  async function submitPushSubscription(ctx: Context): Promise<void> {
    const got = await kit.postedJson(ctx);
    if (!got) return;
    const { form } = got;
    try {
      await kit.call(got.user, 'add_push_subscription', {
        endpoint: form.endpoint ?? '',
        keys: { p256dh: form.p256dh ?? '', auth: form.auth ?? '' },
        ...(form.browser ? { browser: form.browser.slice(0, 200) } : {}),
      });
    } catch (err) {
      const refused = refusal(err);
      ctx.status = refused.status;
      ctx.body = { error: refused.message };
      return;
    }
    ctx.body = { ok: true, next: `${NOTIFICATIONS_PATH}?done=push-on` };
  }

  async function submitPushRemoval(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    try {
      await kit.call(got.user, 'remove_push_subscription', { id: got.form.id ?? '' });
    } catch (err) {
      const refused = refusal(err);
      return notificationsPage(ctx, got.user, { status: refused.status, error: refused.message });
    }
    kit.redirect(ctx, `${NOTIFICATIONS_PATH}?done=push-removed`);
  }

  function tokenOf(ctx: Context, form?: URLSearchParams): { userId: string; kind: keyof typeof KINDS } | null {
    const token = form?.get('token') ?? (typeof ctx.query.token === 'string' ? ctx.query.token : '');
    return readUnsubscribeToken(notificationKeys(config.dataDir), token);
  }

  function unsubscribePage(ctx: Context, status: number, body: Html): void {
    sendPage(ctx, status, page('Email notifications', html`<div class="card">${body}</div>`));
  }

  /** The link of an email opened in a browser: a button, since a link checker's GET must change nothing. */
  async function showUnsubscribe(ctx: Context): Promise<void> {
    const named = tokenOf(ctx);
    if (!named)
      return unsubscribePage(ctx, 404, html`<p class="error">This unsubscribe link is not valid. Change your emails under Settings → Notifications.</p>`);
    unsubscribePage(
      ctx,
      200,
      html`<p>Stop emails about ${KINDS[named.kind]}?</p>
<form method="post" action="${UNSUBSCRIBE_PATH}"><input type="hidden" name="token" value="${String(ctx.query.token)}"><button type="submit">Stop these emails</button></form>`,
    );
  }

  /**
   * The unsubscribe itself: a mail client's one-click POST (RFC 8058: the link's URL, body
   * `List-Unsubscribe=One-Click`) or the button above; the token names the person and the kind.
   */
  async function submitUnsubscribe(ctx: Context): Promise<void> {
    const form = await readFormParams(ctx);
    const named = tokenOf(ctx, form);
    if (!named) return unsubscribePage(ctx, 404, html`<p class="error">This unsubscribe link is not valid.</p>`);
    const user = await getUser(db, named.userId).catch(() => null);
    if (!user) return unsubscribePage(ctx, 404, html`<p class="error">This unsubscribe link is not valid.</p>`);
    const person: WebUser = { id: user.id, email: user.email, name: user.name, signedInAt: new Date(0), freshFor: null };
    await kit.call(person, 'set_notification_settings', named.kind === 'reminder' ? { emailReminders: false } : { emailQuestions: false });
    unsubscribePage(
      ctx,
      200,
      html`<p class="notice" role="status">You get no more emails about ${KINDS[named.kind]}. Turn them on again under Settings → Notifications.</p>`,
    );
  }
}
