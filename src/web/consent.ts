/**
 * The OAuth consent screen at /oauth/consent: oidc-provider sends the browser here for the
 * interaction (sign-in, then consent) and gets its result back from here.
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { errors as oidcErrors, type Provider } from 'oidc-provider';
import { keepClient } from '../auth/oauth/adapter.js';
import { answeredScope, approvedRedirectUris, approveRedirectUri, connectionGrantOf, setConnectionGrant } from '../auth/oauth/grants.js';
import { grantFromScopes, narrowGrant } from '../domain/accounts/grants.js';
import { chosenGrant, grantChoices } from './grant-form.js';
import { CONSENT_PATH } from './oauth/provider.js';
import { whereItReturns } from './format.js';
import { type Html, html, page, sendPage } from './html.js';
import type { PageKit } from './page-kit.js';
import { currentUser, type WebUser } from './sessions.js';
import { clientIdentity } from './client-identity.js';

type Details = Awaited<ReturnType<Provider['interactionDetails']>>;
type Client = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

/** The routes of the consent screen: small handlers over the page kit. */
export function registerConsent(router: Router, kit: PageKit): void {
  router.get(CONSENT_PATH, (ctx) => showConsent(kit, ctx));
  router.post(CONSENT_PATH, (ctx) => submitConsent(kit, ctx));
}

/** The interaction this browser is in, or null after rendering why there is none. */
async function interaction(kit: PageKit, ctx: Context, uid: unknown): Promise<Details | null> {
  let details: Details | null = null;
  try {
    details = await kit.deps.provider.interactionDetails(ctx.req, ctx.res);
  } catch (err) {
    // No interaction cookie, or its interaction is gone (expired, finished, another browser's).
    if (!(err instanceof oidcErrors.SessionNotFound)) throw err;
  }
  if (!details || (typeof uid === 'string' && uid !== '' && uid !== details.uid)) {
    sendPage(
      ctx,
      400,
      page(
        'This request has expired',
        html`<div class="card"><p>This connection request expired or was already used. Go back to your app and connect again.</p></div>`,
      ),
    );
    return null;
  }
  return details;
}

async function finish(kit: PageKit, ctx: Context, result: Parameters<Provider['interactionResult']>[2]): Promise<void> {
  const to = await kit.deps.provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
  ctx.status = 303;
  ctx.redirect(to);
}

async function showConsent(kit: PageKit, ctx: Context): Promise<void> {
  const { db, provider } = kit.deps;
  const details = await interaction(kit, ctx, ctx.query.interaction);
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
    return finish(kit, ctx, { login: { accountId: user.id, ts: Math.floor(user.signedInAt.getTime() / 1000) } });
  }
  if (details.prompt.name !== 'consent') {
    return finish(kit, ctx, { error: 'interaction_required', error_description: `listkeeper cannot resolve the '${details.prompt.name}' prompt.` });
  }
  const client = await provider.Client.find(String(details.params.client_id));
  if (!client) return finish(kit, ctx, { error: 'invalid_client', error_description: 'The app is no longer registered.' });
  sendPage(ctx, 200, page('Connect an app', await consentCard(kit, ctx, user, details, client), { nav: kit.nav(ctx, user) }));
}

/** What the app asks for, where the browser goes back to, and the Allow and Deny buttons. */
async function consentCard(kit: PageKit, ctx: Context, user: WebUser, details: Details, client: Client): Promise<Html> {
  const redirectUri = String(details.params.redirect_uri);
  const registered = client.redirectUris ?? [];
  const grant = details.grantId ? await kit.deps.provider.Grant.find(details.grantId) : undefined;
  const approved = approvedRedirectUris(grant);
  const scopes = new Set(String(details.params.scope ?? '').split(' '));
  const appName = client.clientName ?? null;
  const { lists } = await kit.call(user, 'list_lists', {});
  // A step-up (the app holds a grant already) shows what it holds and only what is added.
  const held = grant && answeredScope(grant) !== undefined ? { grant: connectionGrantOf(grant) } : undefined;
  const asked = grantFromScopes(String(details.params.scope ?? ''));
  return html`<div class="card"><form method="post" action="${CONSENT_PATH}">
<p>${clientIdentity(client)} wants to use your listkeeper account <strong>${user.email}</strong>.</p>
${grantChoices({ lists, preset: asked, cap: asked, ...(held ? { held } : {}) })}
<p>${scopes.has('email') ? 'It will also see your email address. ' : ''}It stays connected until you disconnect it under Settings → Connections, where you can also change what it may do.</p>
<p>If you allow it, you go back to:<br><code>${redirectUri}</code><br><span class="muted">— ${whereItReturns(redirectUri)}.</span></p>
${
  registered.length > 1
    ? html`<p>This app registered ${registered.length} return addresses. Allowing it now allows the one above only; for any other it asks you again:</p>
<p class="addresses">${registered.map(
        (uri) =>
          html`<code>${uri}</code> <span class="muted">— ${whereItReturns(uri)}${uri === redirectUri ? ' (this request)' : approved.includes(uri) ? ' (allowed before)' : ''}</span><br>`,
      )}</p>`
    : html``
}
${appName ? html`` : html`<p class="muted">The app did not give its name; only allow it if you just started connecting an app yourself.</p>`}
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<input type="hidden" name="interaction" value="${details.uid}">
<button type="submit" name="decision" value="allow">Allow</button>
<button class="secondary" type="submit" name="decision" value="deny">Deny</button>
</form>
<p class="muted">App id: <code>${client.clientId}</code></p>
</div>`;
}

async function submitConsent(kit: PageKit, ctx: Context): Promise<void> {
  const { db, provider } = kit.deps;
  const form = await kit.checkedForm(ctx);
  if (!form) return;
  const details = await interaction(kit, ctx, form.interaction);
  if (!details) return;
  const user = await currentUser(ctx, db);
  if (!user) return ctx.redirect(`/signin?next=${encodeURIComponent(`${CONSENT_PATH}?interaction=${details.uid}`)}`);
  if (details.prompt.name !== 'consent' || details.session?.accountId !== user.id) {
    ctx.status = 303;
    return ctx.redirect(`${CONSENT_PATH}?interaction=${encodeURIComponent(details.uid)}`);
  }
  if (form.decision !== 'allow') {
    return finish(kit, ctx, { error: 'access_denied', error_description: 'The person declined to connect this app.' });
  }
  const clientId = String(details.params.client_id);
  const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId: user.id, clientId });
  // What the person allowed: what the app asked for, narrowed by their choices on the page.
  const scope = String(details.params.scope ?? '');
  setConnectionGrant(grant, narrowGrant(grantFromScopes(scope), chosenGrant(form)), scope);
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  // The page showed this address: the consent is for it (provider.ts asks again for any other).
  approveRedirectUri(grant, String(details.params.redirect_uri));
  const grantId = await grant.save();
  await keepClient(db, clientId);
  await finish(kit, ctx, { consent: { grantId } });
}
