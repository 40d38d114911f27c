/**
 * Search and the trash. Search is the hybrid search of the API (meaning and words), answered
 * as a page; with JavaScript, htmx asks again as the person types and swaps in the results.
 * The trash lists deleted items and lists until they are purged, each with Restore.
 * @see openapi/openapi.yaml search, list_deleted, restore_deleted
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { timeZoneOf } from '../domain/accounts/accounts.js';
import { localNow } from '../domain/time.js';
import { html, type Html } from './html.js';
import { shorten } from './format.js';
import { refusal, type PageKit } from './page-kit.js';
import type { WebUser } from './sessions.js';

export const SEARCH_PATH = '/search';
export const TRASH_PATH = '/trash';
const MAX_QUERY = 500;
const TRASH_PAGE = 50;

export function registerFindPages(router: Router, kit: PageKit): void {
  const { db } = kit.deps;

  router.get(SEARCH_PATH, showSearch);
  router.get(TRASH_PATH, showTrash);
  router.post(`${TRASH_PATH}/restore`, restore);

  async function showSearch(ctx: Context): Promise<void> {
    const user = await kit.signedIn(ctx);
    if (!user) return;
    const q = typeof ctx.query.q === 'string' ? ctx.query.q.slice(0, MAX_QUERY) : '';
    const results = q.trim() ? await searchResults(user, q) : html`<p class="muted">Search titles, notes and values by meaning and by words.</p>`;
    // htmx asks for the results only as the person types.
    if (kit.fromHtmx(ctx) && ctx.get('hx-target') === 'results') {
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = results.value;
      return;
    }
    const body = html`<form method="get" action="${SEARCH_PATH}" role="search" class="card row">
<div><label for="q">Search for</label>
<input id="q" name="q" type="search" maxlength="${MAX_QUERY}" value="${q}" autocomplete="off"
 hx-get="${SEARCH_PATH}" hx-trigger="input changed delay:300ms, search" hx-target="#results" hx-push-url="true" aria-controls="results"></div>
<button type="submit">Search</button>
</form>
<section id="results" aria-live="polite">${results}</section>`;
    kit.show(ctx, user, 'Search', body, { section: 'search' });
  }

  async function searchResults(user: WebUser, q: string): Promise<Html> {
    try {
      const { results } = await kit.call(user, 'search', { q, limit: 20 });
      if (results.length === 0) return html`<p>Nothing found for “${q}”.</p>`;
      return html`<ul class="lines card">${results.map(
        (hit) =>
          html`<li><a href="/artifacts/${hit.itemId}"><strong>${hit.title?.trim() || '(untitled)'}</strong></a> <span class="muted">in ${hit.listIcon ? `${hit.listIcon} ` : ''}${hit.listName}</span><br><span class="muted">${excerpt(hit.passage)}</span></li>`,
      )}</ul>`;
    } catch (err) {
      return html`<p class="error" role="alert">${refusal(err).message}</p>`;
    }
  }

  async function showTrash(ctx: Context): Promise<void> {
    const user = await kit.signedIn(ctx);
    if (user) await trashPage(ctx, user);
  }

  async function trashPage(ctx: Context, user: WebUser, options: { status?: number; error?: string } = {}): Promise<void> {
    const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : undefined;
    const trash = await kit
      .call(user, 'list_deleted', { limit: TRASH_PAGE, ...(cursor ? { cursor } : {}) })
      .catch(() => kit.call(user, 'list_deleted', { limit: TRASH_PAGE }));
    const tz = await timeZoneOf(db, user.id);
    const day = (iso: string) => localNow(new Date(iso), tz).today;
    const body = trash.items.length
      ? html`<section class="card"><ul class="apps">${trash.items.map(
          (entry) =>
            html`<li><strong>${entry.title?.trim() || '(untitled)'}</strong> <span class="muted">${entry.type === 'list' ? `list with ${entry.itemCount ?? 0} items` : `from ${entry.listName ?? 'a deleted list'}`} · deleted ${day(entry.deletedAt)} · purged ${day(entry.purgesAt)}</span>${
              entry.snippet ? html`<br><span class="muted">${excerpt(entry.snippet)}</span>` : ''
            }<br>${kit.button(ctx, `${TRASH_PATH}/restore`, 'Restore', { kind: 'secondary small', fields: { type: entry.type, id: entry.id }, title: `Restore ${entry.title ?? 'it'}` })}</li>`,
        )}</ul>${trash.hasMore && trash.nextCursor ? html`<p><a href="${TRASH_PATH}?cursor=${encodeURIComponent(trash.nextCursor)}">Older</a></p>` : ''}</section>`
      : html`<p class="muted">The trash is empty.</p>`;
    kit.show(ctx, user, 'Trash', body, {
      section: 'trash',
      ...(options.status ? { status: options.status } : {}),
      error: options.error ?? null,
      notice: restoredNotice(ctx.query.restored),
    });
  }

  async function restore(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user, form } = got;
    try {
      const result = await kit.call(user, 'restore_deleted', { type: form.type === 'list' ? 'list' : 'item', id: form.id ?? '' });
      kit.redirect(ctx, `${TRASH_PATH}?restored=${result.type}`);
    } catch (err) {
      const e = refusal(err);
      await trashPage(ctx, user, { status: e.status, error: e.message });
    }
  }
}

function restoredNotice(type: unknown): string | null {
  if (type === 'item') return 'The item is back on its list.';
  if (type === 'list') return 'The list is back, with its items.';
  return null;
}

function excerpt(text: string): string {
  return shorten(text.replace(/\s+/g, ' ').trim(), 200);
}
