/**
 * Settings → Notifications: how a task's reminder and an agent's question reach the person —
 * Web Push to the browsers they turn it on in (src/web/static/app.js subscribes this browser
 * to the service's VAPID key), email, an ntfy-style topic — with quiet hours, the note left
 * when a channel was dropped, and the latest deliveries. The writes are the person's own
 * operations (set_notification_settings, add_push_subscription, remove_push_subscription);
 * an email's one-click unsubscribe is src/web/unsubscribe.ts.
 * @see docs/notifications.md
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { recentDeliveries } from '../domain/notifications/deliveries.js';
import { notificationKeys } from '../domain/notifications/keys.js';
import { pushSubscriptions, readSettings, type NotificationSettings } from '../domain/notifications/settings.js';
import { Html, html } from './html.js';
import { noticeOf, refusal, type PageKit } from './page-kit.js';
import type { WebUser } from './sessions.js';

export const NOTIFICATIONS_PATH = '/settings/notifications';

const NOTICES: Record<string, string> = {
  saved: 'Your notification settings were saved.',
  'push-on': 'This browser takes pushes now.',
  'push-removed': 'That browser takes no more pushes.',
};

/** The kinds of notification, as the emails name them. */
export const KINDS = { reminder: 'task reminders', question: 'questions from your agents' } as const;

export function registerNotifications(router: Router, kit: PageKit): void {
  router.get(NOTIFICATIONS_PATH, showNotifications);
  router.post(NOTIFICATIONS_PATH, submitSettings);
  router.post(`${NOTIFICATIONS_PATH}/push`, submitPushSubscription);
  router.post(`${NOTIFICATIONS_PATH}/push/remove`, submitPushRemoval);

  async function showNotifications(ctx: Context): Promise<void> {
    const user = await kit.signedIn(ctx);
    if (!user) return;
    await notificationsPage(kit, ctx, user, { notice: noticeOf(NOTICES, ctx.query.done) });
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
      return notificationsPage(kit, ctx, got.user, { status: refused.status, error: refused.message });
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
      return notificationsPage(kit, ctx, got.user, { status: refused.status, error: refused.message });
    }
    kit.redirect(ctx, `${NOTIFICATIONS_PATH}?done=push-removed`);
  }
}

function pushSection(kit: PageKit, ctx: Context, browsers: Awaited<ReturnType<typeof pushSubscriptions>>): Html {
  return html`<section class="card" aria-labelledby="push-h"><h2 id="push-h">Push to this browser</h2>
<p class="muted">Shows notifications on this device, even with listkeeper closed; a click opens the item. Installed as an app, it works the same.</p>
<div class="push-setup" data-vapid-key="${notificationKeys(kit.deps.config.dataDir).vapidPublicKey}" data-action="${NOTIFICATIONS_PATH}/push">
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

function channelsSection(settings: NotificationSettings, user: WebUser, mailServer: boolean): Html {
  const checked = (on: boolean) => (on ? new Html(' checked') : '');
  return html`<section class="card" aria-labelledby="channels-h"><h2 id="channels-h">Channels</h2>
<p><label><input type="checkbox" name="pushOn"${checked(settings.pushOn)}> Push to the browsers above</label></p>
<p><label><input type="checkbox" name="emailOn"${checked(settings.emailOn)}> Email</label>${mailServer ? '' : html` <span class="muted">(this service has no mail server: its operator sets SMTP_URL)</span>`}</p>
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

/** The page as it is now, with a notice or a refusal. */
async function notificationsPage(
  kit: PageKit,
  ctx: Context,
  user: WebUser,
  opts: { status?: number; notice?: string | null; error?: string | null } = {},
): Promise<void> {
  const { db, config } = kit.deps;
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
${pushSection(kit, ctx, browsers)}
<form method="post" action="${NOTIFICATIONS_PATH}">${csrf}
${channelsSection(settings, user, config.smtp !== null)}
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
