/**
 * Settings → Connections: the API key (create_api_key, revoke_api_key), the apps connected by
 * OAuth (their grants are the authorization server's own records, kept by auth/oauth) and the
 * event subscriptions (delete_event_subscription, as over REST).
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { apiKeyHint } from '../domain/accounts/api-keys.js';
import { changeConnectedApp, listConnectedApps, revokeConnectedApp } from '../auth/oauth/grants.js';
import { grantInWords, narrowGrant, parseGrant } from '../domain/accounts/grants.js';
import { chosenGrant, grantChoices } from './grant-form.js';
import { whereItReturns } from './format.js';
import { type Html, html } from './html.js';
import { noticeOf, refusal, type PageKit } from './page-kit.js';
import { listSubscriptions } from '../domain/changes/subscriptions.js';
import { isUuid } from '../domain/ids.js';
import type { WebUser } from './sessions.js';
import type { OpOutput } from '../core/context.js';

export const CONNECTIONS_PATH = '/settings/connections';

/** The routes of the Connections page: small handlers over the page kit. */
export function registerConnections(router: Router, kit: PageKit): void {
  // The front door is the person's lists.
  router.get('/', (ctx) => ctx.redirect('/lists'));
  router.get(CONNECTIONS_PATH, (ctx) => showConnections(kit, ctx));
  router.post(`${CONNECTIONS_PATH}/api-key`, (ctx) => createKey(kit, ctx));
  router.post(`${CONNECTIONS_PATH}/api-key/revoke`, (ctx) => revokeKey(kit, ctx));
  router.post(`${CONNECTIONS_PATH}/apps/revoke`, (ctx) => disconnectApp(kit, ctx));
  router.post(`${CONNECTIONS_PATH}/apps/grant`, (ctx) => changeAppGrant(kit, ctx));
  router.post(`${CONNECTIONS_PATH}/subscriptions/remove`, (ctx) => removeEventSubscription(kit, ctx));
}

type Lists = OpOutput<'list_lists'>['lists'];
type App = Awaited<ReturnType<typeof listConnectedApps>>[number];
type InWords = (grant: Parameters<typeof grantInWords>[0]) => string;

async function connectionsPage(kit: PageKit, ctx: Context, user: WebUser, opts: { newKey?: string; notice?: string; status?: number } = {}): Promise<void> {
  const { db, config } = kit.deps;
  const key = await apiKeyHint(db, user.id);
  const apps = await listConnectedApps(db, user.id);
  const subscriptions = await listSubscriptions(db, user.id);
  const token = kit.csrf(ctx);
  const { lists } = await kit.call(user, 'list_lists', {});
  const listName = (id: string) => lists.find((l) => l.id === id)?.name ?? 'a list you no longer have';
  const inWords: InWords = (grant) => grantInWords(grant, listName).join(' ');
  const keySection = opts.newKey
    ? html`<p class="notice">Your new API key. Copy it now: it is shown only once${key ? ', and any previous key has stopped working' : ''}.</p>
<code class="key">${opts.newKey}</code>
<p class="muted">Send it as <code>Authorization: Bearer &lt;key&gt;</code> to ${config.baseUrl}/mcp or ${config.baseUrl}/api/v1.</p>`
    : key
      ? html`<p>Your key <code>${key.hint}</code> was created ${key.created_at.toISOString().slice(0, 10)}. It may: ${inWords(parseGrant(key.grant))}</p>`
      : html`<p>You have no API key. Use one for apps that cannot connect with OAuth.</p>`;
  const appItems = apps.map((app) => appItem(app, token, lists, inWords));
  const made = (credential: string | null) =>
    credential?.startsWith('key:')
      ? 'made with your API key'
      : credential?.startsWith('grant:')
        ? `made by ${apps.find((a) => `grant:${a.grantId}` === credential)?.clientName ?? 'an app'}`
        : 'made before connections were recorded';
  const subscriptionItems = subscriptions.map(
    (s) => html`<li><strong>${s.url}</strong><br>
<span class="muted">${s.via === 'mcp' ? 'MCP events' : 'Webhook'} · ${s.status} · ${made(s.credential)} · ${s.events.join(', ')}</span>
<form method="post" action="${CONNECTIONS_PATH}/subscriptions/remove"><input type="hidden" name="csrf" value="${token}"><input type="hidden" name="subscription" value="${s.id}"><button class="danger" type="submit">Remove</button></form></li>`,
  );
  kit.show(
    ctx,
    user,
    'Connections',
    html`${opts.notice ? html`<p class="notice">${opts.notice}</p>` : ''}
<section class="card"><h2>API key</h2>
${keySection}
<form method="post" action="${CONNECTIONS_PATH}/api-key"><input type="hidden" name="csrf" value="${token}">
<details><summary>What the key may do (everything, unless you narrow it)</summary>${grantChoices({ lists, preset: undefined })}</details>
<button type="submit">${key ? 'Replace the key' : 'Create a key'}</button></form>
${key ? html`<form method="post" action="${CONNECTIONS_PATH}/api-key/revoke"><input type="hidden" name="csrf" value="${token}"><button class="danger" type="submit">Revoke the key</button></form>` : ''}
</section>
<section class="card"><h2>Connected apps</h2>
${apps.length > 0 ? html`<ul class="apps">${appItems}</ul>` : html`<p>No apps are connected. Apps connect by OAuth from ${config.baseUrl}/mcp.</p>`}
</section>
<section class="card"><h2>Event subscriptions</h2>
${subscriptions.length > 0 ? html`<ul class="apps">${subscriptionItems}</ul>` : html`<p>No webhooks or MCP event subscriptions. They end with the key or app that made them.</p>`}
</section>`,
    { settings: 'connections', ...(opts.status ? { status: opts.status } : {}) },
  );
}

/** One connected app: every return address it registered (where it leads, whether the person allowed it), its grant, and its forms. */
function appItem(app: App, token: string, lists: Lists, inWords: InWords): Html {
  const addresses = html`<p class="addresses">${app.redirectUris.map(
    (uri) =>
      html`<code>${uri}</code> <span class="muted">— ${whereItReturns(uri)}</span> ${app.approvedRedirectUris.includes(uri) ? html`<span class="badge">allowed</span>` : html`<span class="muted">(not allowed: it would ask you first)</span>`}<br>`,
  )}</p>`;
  return html`<li><strong>${app.clientName ?? 'An app that gave no name'}</strong><br>
<span class="muted">Connected ${app.approvedAt ? app.approvedAt.toISOString().slice(0, 10) : ''} · returns to:</span>
${addresses}
<p>It may: ${inWords(app.grant)}</p>
<details><summary>Change what it may do</summary>
<form method="post" action="${CONNECTIONS_PATH}/apps/grant"><input type="hidden" name="csrf" value="${token}"><input type="hidden" name="grant" value="${app.grantId}">
${grantChoices({ lists, preset: app.grant })}
<button type="submit">Save</button> <span class="muted">It holds to this from its next request.</span></form></details>
<form method="post" action="${CONNECTIONS_PATH}/apps/revoke"><input type="hidden" name="csrf" value="${token}"><input type="hidden" name="grant" value="${app.grantId}"><button class="danger" type="submit">Disconnect</button></form></li>`;
}

const NOTICES: Record<string, string> = {
  'key-revoked': 'Your API key was revoked; it answers 401 from now on.',
  'app-revoked': 'The app was disconnected; its tokens and event subscriptions no longer work.',
  'app-changed': 'What the app may do was changed; it holds to it from its next request.',
  'subscription-removed': 'The event subscription was removed.',
};

async function showConnections(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (!user) return;
  const notice = noticeOf(NOTICES, ctx.query.done);
  await connectionsPage(kit, ctx, user, notice ? { notice } : {});
}

async function createKey(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  const chosen = chosenGrant(form);
  const access = ({ read: 'readOnly', write: 'noDeletes', delete: 'all' } as const)[chosen.level];
  const { key: newKey } = await kit.call(user, 'create_api_key', {
    access,
    ...(chosen.lists ? { lists: chosen.lists, laterLists: chosen.later } : {}),
  });
  // Shown in this response only; the page is never cached (sendPage) and a reload shows the hint.
  await connectionsPage(kit, ctx, user, { newKey, status: 201 });
}

async function revokeKey(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  await kit.call(got.user, 'revoke_api_key', {});
  kit.redirect(ctx, `${CONNECTIONS_PATH}?done=key-revoked`);
}

async function disconnectApp(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  await revokeConnectedApp(kit.deps.db, got.user.id, got.form.grant ?? '');
  kit.redirect(ctx, `${CONNECTIONS_PATH}?done=app-revoked`);
}

/** Narrows or widens what an app may do; its next request holds to it (the grant is read with every token). */
async function changeAppGrant(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  await changeConnectedApp(kit.deps.db, got.user.id, got.form.grant ?? '', narrowGrant(undefined, chosenGrant(got.form)));
  kit.redirect(ctx, `${CONNECTIONS_PATH}?done=app-changed`);
}

async function removeEventSubscription(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  if (isUuid(form.subscription ?? '')) {
    try {
      await kit.call(user, 'delete_event_subscription', { id: form.subscription! });
    } catch (err) {
      // One that is not theirs, or is gone already, is not there to remove: the page says it is gone either way.
      if (refusal(err).status !== 404) throw err;
    }
  }
  kit.redirect(ctx, `${CONNECTIONS_PATH}?done=subscription-removed`);
}
