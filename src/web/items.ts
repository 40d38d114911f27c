/**
 * The person's side of items and chats: the item page at `/artifacts/<id>` (title, body,
 * status, due date, the chat with a reply box) and the main conversation at `/conversation`
 * (one line per agent post across items). Server-rendered, no JavaScript, signed-in only
 * (the web session of src/web/sessions.ts), forms CSRF-checked; Markdown rendered safely.
 * @see openapi/openapi.yaml components/schemas/Item (webUrl), post_chat_message
 */
import type { Context, Middleware } from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { getUser } from '../domain/accounts.js';
import { listsById, loadAccessible } from '../domain/items.js';
import { keepsDueDate, keepsStatus } from '../domain/lists.js';
import { describe } from '../domain/recurrence.js';
import { chatForPage, mainConversation, markChatRead, postPersonMessage, type ChatMessageRow } from '../domain/chat.js';
import { Html, html, page, sendPage } from './html.js';
import { readForm } from './forms.js';
import { csrfToken, csrfValid, currentUser, type WebUser } from './sessions.js';
import { renderMarkdown } from './markdown.js';

export const CONVERSATION_PATH = '/conversation';
const MAX_MESSAGE = 20000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ItemPagesDeps {
  db: Knex;
  config: Config;
  cookieKeys: string[];
  now(): Date;
}

const STYLE = new Html(`<style>
.meta{display:flex;flex-wrap:wrap;gap:.4rem 1rem;margin:0 0 .5rem}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:.1rem .5rem;border-radius:999px;background:#e8eefc;color:#0b3d91}
.badge.unread{background:#0b5ed7;color:#fff}
.badge.ask{background:#fff3cd;color:#664d03}
.markdown{overflow-wrap:anywhere}
.markdown img{max-width:100%}
.markdown table{border-collapse:collapse}.markdown td,.markdown th{border:1px solid #d2d2d7;padding:.25rem .5rem}
ol.chat{list-style:none;padding:0;margin:0}
ol.chat li{border-top:1px solid #e5e5ea;padding:.75rem 0}
ol.chat li:first-child{border-top:0}
ol.chat li.person{padding-left:1rem;border-left:3px solid #c7c7cc}
ol.chat li.unread .who{font-weight:700}
textarea{width:100%;min-height:6rem;padding:.65rem;font:inherit;border:1px solid #c7c7cc;border-radius:8px}
ul.lines{list-style:none;padding:0;margin:0}
ul.lines li{border-top:1px solid #e5e5ea;padding:.6rem 0}
ul.lines li:first-child{border-top:0}
</style>`);

/** The item page and the main conversation, as koa middleware. */
export function itemPages(deps: ItemPagesDeps): Middleware {
  const { db } = deps;
  const router = new Router();
  const ownOrigins = new Set([new URL(deps.config.baseUrl).origin, new URL(deps.config.webOrigin).origin]);

  const nav = (ctx: Context, user: WebUser): Html =>
    html`<nav><span class="muted">Signed in as ${user.email} · <a href="${CONVERSATION_PATH}">Conversation</a> · <a href="/settings/connections">Settings</a></span><form method="post" action="/signout"><input type="hidden" name="csrf" value="${csrfToken(ctx, deps.cookieKeys[0]!)}"><button class="secondary" type="submit">Sign out</button></form></nav>`;

  /** The signed-in person, or a redirect to sign-in that comes back here. */
  async function signedIn(ctx: Context): Promise<WebUser | null> {
    const user = await currentUser(ctx, db);
    if (!user) {
      ctx.status = 303;
      ctx.redirect(`/signin?next=${encodeURIComponent(ctx.method === 'GET' ? ctx.path : ctx.path.replace(/\/messages$/, ''))}`);
    }
    return user;
  }

  function notFoundPage(ctx: Context, user: WebUser): void {
    sendPage(
      ctx,
      404,
      page(
        'No such item',
        html`${STYLE}<div class="card"><p>This item is not in your workspace: it may have been deleted, or it belongs to someone else.</p><p><a href="${CONVERSATION_PATH}">Back to your conversation</a></p></div>`,
        { nav: nav(ctx, user) },
      ),
    );
  }

  async function reachable(id: string, user: WebUser) {
    if (!UUID.test(id)) return null;
    const found = (await loadAccessible(db, user.id, [id])).get(id);
    if (!found) return null;
    const list = (await listsById(db, [found.row.list_id])).get(found.row.list_id)!;
    return { ...found, list };
  }

  router.get('/artifacts/:id', async (ctx) => {
    const user = await signedIn(ctx);
    if (!user) return;
    const item = await reachable(ctx.params.id!, user);
    if (!item) return notFoundPage(ctx, user);
    const { row, list } = item;
    const { timezone } = await getUser(db, user.id);
    const messages = await chatForPage(db, row.id);
    const when = (d: Date) => formatTime(d, timezone);
    const facts: Html[] = [html`<span>List: ${list.name}</span>`];
    if (keepsStatus(list)) facts.push(html`<span>Status: <strong>${STATUS_TEXT[row.task_status ?? 'todo']}</strong></span>`);
    if (keepsDueDate(list))
      facts.push(html`<span>Due: ${row.due_at ? (row.has_due_time ? when(row.due_at) : formatDay(row.due_at, timezone)) : 'no due date'}</span>`);
    if (keepsDueDate(list) && row.recurrence) facts.push(html`<span>Repeats ${describe(row.recurrence)}</span>`);
    if (keepsDueDate(list) && row.reminder_at) facts.push(html`<span>Reminder: ${when(row.reminder_at)}</span>`);
    if (row.labels?.length) facts.push(html`<span>Labels: ${row.labels.join(', ')}</span>`);
    if (row.assigned_agent) facts.push(html`<span>Assigned to ${row.assigned_agent}</span>`);
    const body = row.body?.trim() ? html`<div class="markdown">${new Html(renderMarkdown(row.body))}</div>` : html`<p class="muted">No notes yet.</p>`;
    const chat = messages.length
      ? html`<ol class="chat">${messages.map((m) => messageItem(m, when))}</ol>`
      : html`<p class="muted">No messages yet. Write to the agent working on this below.</p>`;
    const csrf = csrfToken(ctx, deps.cookieKeys[0]!);
    sendPage(
      ctx,
      200,
      page(
        row.title?.trim() || '(untitled)',
        html`${STYLE}<div class="card"><div class="meta">${facts}</div>${body}</div>
<div class="card" id="chat"><h2>Chat</h2>${chat}
<form method="post" action="/artifacts/${row.id}/messages">
<input type="hidden" name="csrf" value="${csrf}">
<label for="message">Your reply</label>
<textarea id="message" name="message" required maxlength="${MAX_MESSAGE}"></textarea>
<button type="submit">Send</button>
</form></div>`,
        { nav: nav(ctx, user) },
      ),
    );
    // Shown once as unread; seen from now on.
    await markChatRead(db, row.id, deps.now());
  });

  router.post('/artifacts/:id/messages', async (ctx) => {
    const user = await signedIn(ctx);
    if (!user) return;
    const origin = ctx.get('origin');
    const form = await readForm(ctx);
    if ((origin && origin !== 'null' && !ownOrigins.has(origin)) || !csrfValid(ctx, deps.cookieKeys, form.csrf)) {
      sendPage(
        ctx,
        403,
        page(
          'Please try again',
          html`<div class="card"><p class="error">This form expired or was sent from another site.</p><p><a href="/artifacts/${encodeURIComponent(ctx.params.id!)}">Reload the page</a> and send it again.</p></div>`,
        ),
      );
      return;
    }
    const item = await reachable(ctx.params.id!, user);
    if (!item) return notFoundPage(ctx, user);
    const text = (form.message ?? '').replace(/\r\n/g, '\n').trim();
    if (text === '' || text.length > MAX_MESSAGE) {
      sendPage(
        ctx,
        400,
        page(
          'Nothing sent',
          html`<div class="card"><p class="error">${text === '' ? 'Write a message first.' : `A message holds at most ${MAX_MESSAGE} characters.`}</p><p><a href="/artifacts/${item.row.id}#chat">Back to the item</a></p></div>`,
          { nav: nav(ctx, user) },
        ),
      );
      return;
    }
    await postPersonMessage(db, item.row, item.list, { id: user.id, name: user.name }, text);
    ctx.status = 303;
    ctx.redirect(`/artifacts/${item.row.id}#chat`);
  });

  router.get(CONVERSATION_PATH, async (ctx) => {
    const user = await signedIn(ctx);
    if (!user) return;
    const { timezone } = await getUser(db, user.id);
    const lines = await mainConversation(db, user.id);
    const list = lines.length
      ? html`<ul class="lines">${lines.map(
          (l) =>
            html`<li${l.unread ? new Html(' class="unread"') : ''}>${l.unread ? html`<span class="badge unread">Unread</span> ` : ''}${l.needsInput ? html`<span class="badge ask">Waiting for you</span> ` : ''}<strong>${l.agentName}</strong> on <a href="/artifacts/${l.itemId}#chat">${l.itemTitle?.trim() || '(untitled)'}</a>: ${excerpt(l.text)} <span class="muted">${formatTime(l.createdAt, timezone)}</span></li>`,
        )}</ul>`
      : html`<p class="muted">No agent has written to you yet.</p>`;
    sendPage(ctx, 200, page('Conversation', html`${STYLE}<div class="card">${list}</div>`, { nav: nav(ctx, user) }));
  });

  return router.routes() as Middleware;
}

const STATUS_TEXT: Record<string, string> = { todo: 'To do', inProgress: 'In progress', completed: 'Completed' };

function messageItem(m: ChatMessageRow, when: (d: Date) => string): Html {
  const unread = m.author_kind !== 'person' && m.read_at === null;
  const classes = [m.author_kind, unread ? 'unread' : ''].filter(Boolean).join(' ');
  const kind = m.author_kind === 'agent' ? 'agent' : m.author_kind === 'service' ? 'listkeeper' : 'you';
  return html`<li class="${classes}" data-kind="${m.author_kind}"><div class="meta"><span class="who">${m.author_name}</span><span class="muted">${kind} · ${when(m.created_at)}${m.updated_at.getTime() !== m.created_at.getTime() ? ' · edited' : ''}</span>${unread ? html`<span class="badge unread">Unread</span>` : ''}${m.needs_input ? html`<span class="badge ask">Waiting for your answer</span>` : ''}</div><div class="markdown">${new Html(renderMarkdown(m.text))}</div></li>`;
}

/** The first line of a message as plain text, at most 160 characters. */
function excerpt(text: string): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

function formatTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(at);
}

function formatDay(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium' }).format(at);
}
