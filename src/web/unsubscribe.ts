/**
 * The one-click unsubscribe of a notification email (RFC 8058): a mail client POSTs the link of
 * List-Unsubscribe with `List-Unsubscribe=One-Click`, or the person opens it and presses the
 * button (a GET only asks: a link checker's visit must change nothing). The signed token names
 * the person and the kind of mail and is the permission, so no session is needed; the change
 * is the person's set_notification_settings.
 * @see docs/notifications.md
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { getUser } from '../domain/accounts/accounts.js';
import { notificationKeys, readUnsubscribeToken } from '../domain/notifications/keys.js';
import { readFormParams } from './forms.js';
import { type Html, html, page, sendPage } from './html.js';
import { KINDS } from './notifications.js';
import type { PageKit } from './page-kit.js';
import type { WebUser } from './sessions.js';

const UNSUBSCRIBE_PATH = '/notifications/unsubscribe';

export function registerUnsubscribe(router: Router, kit: PageKit): void {
  const { db, config } = kit.deps;

  router.get(UNSUBSCRIBE_PATH, showUnsubscribe);
  router.post(UNSUBSCRIBE_PATH, submitUnsubscribe);

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
