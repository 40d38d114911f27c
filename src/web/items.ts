/**
 * The person's side of items and chats: the item page at `/artifacts/<id>` (title, body,
 * status, due date, the chat with a reply box) and the main conversation at `/conversation`
 * (one line per agent post across items). Server-rendered, no JavaScript, signed-in only
 * (the web session of src/web/sessions.ts), forms CSRF-checked; Markdown rendered safely.
 * @see openapi/openapi.yaml components/schemas/Item (webUrl), post_chat_message
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { getUser } from '../domain/accounts.js';
import { listsById, loadAccessible } from '../domain/items.js';
import { keepsDueDate, keepsStatus } from '../domain/lists.js';
import { describe } from '../domain/recurrence.js';
import { chatForPage, mainConversation, markChatRead, postPersonMessage, type ChatMessageRow } from '../domain/chat.js';
import { Html, html, page, sendPage } from './html.js';
import type { PageKit } from './page-kit.js';
import type { WebUser } from './sessions.js';
import { markdownText, renderMarkdown } from './markdown.js';

export const CONVERSATION_PATH = '/conversation';
const MAX_MESSAGE = 20000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The item page and the main conversation. */
export function registerItemPages(router: Router, kit: PageKit): void {
  const { db } = kit.deps;
  const now = () => kit.deps.services.now();

  function notFoundPage(ctx: Context, user: WebUser): void {
    sendPage(
      ctx,
      404,
      page(
        'No such item',
        html`<div class="card"><p>This item is not in your workspace: it may have been deleted, or it belongs to someone else.</p><p><a href="${CONVERSATION_PATH}">Back to your conversation</a></p></div>`,
        { nav: kit.nav(ctx, user, 'lists') },
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
    const user = await kit.signedIn(ctx);
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
    const csrf = kit.csrf(ctx);
    sendPage(
      ctx,
      200,
      page(
        row.title?.trim() || '(untitled)',
        html`<div class="card"><div class="meta">${facts}</div>${body}</div>
<div class="card" id="chat"><h2>Chat</h2>${chat}
<form method="post" action="/artifacts/${row.id}/messages">
<input type="hidden" name="csrf" value="${csrf}">
<label for="message">Your reply</label>
<textarea id="message" name="message" required maxlength="${MAX_MESSAGE}"></textarea>
<button type="submit">Send</button>
</form></div>`,
        { nav: kit.nav(ctx, user, 'lists') },
      ),
    );
    // Shown once as unread; seen from now on.
    await markChatRead(db, row.id, now());
  });

  router.post('/artifacts/:id/messages', async (ctx) => {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user, form } = got;
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
          { nav: kit.nav(ctx, user, 'lists') },
        ),
      );
      return;
    }
    await postPersonMessage(db, item.row, item.list, { id: user.id, name: user.name }, text);
    ctx.status = 303;
    ctx.redirect(`/artifacts/${item.row.id}#chat`);
  });

  router.get(CONVERSATION_PATH, async (ctx) => {
    const user = await kit.signedIn(ctx);
    if (!user) return;
    const { timezone } = await getUser(db, user.id);
    const lines = await mainConversation(db, user.id);
    const list = lines.length
      ? html`<ul class="lines">${lines.map(
          (l) =>
            html`<li${l.unread ? new Html(' class="unread"') : ''}>${l.unread ? html`<span class="badge unread">Unread</span> ` : ''}${l.needsInput ? html`<span class="badge ask">Waiting for you</span> ` : ''}<strong>${l.agentName}</strong> on <a href="/artifacts/${l.itemId}#chat">${l.itemTitle?.trim() || '(untitled)'}</a>: ${excerpt(l.text)} <span class="muted">${formatTime(l.createdAt, timezone)}</span></li>`,
        )}</ul>`
      : html`<p class="muted">No agent has written to you yet.</p>`;
    sendPage(ctx, 200, page('Conversation', html`<div class="card">${list}</div>`, { nav: kit.nav(ctx, user, 'conversation') }));
  });
}

const STATUS_TEXT: Record<string, string> = { todo: 'To do', inProgress: 'In progress', completed: 'Completed' };

function messageItem(m: ChatMessageRow, when: (d: Date) => string): Html {
  const unread = m.author_kind !== 'person' && m.read_at === null;
  const classes = [m.author_kind, unread ? 'unread' : ''].filter(Boolean).join(' ');
  const kind = m.author_kind === 'agent' ? 'agent' : m.author_kind === 'service' ? 'listkeeper' : 'you';
  return html`<li class="${classes}" data-kind="${m.author_kind}"><div class="meta"><span class="who">${m.author_name}</span><span class="muted">${kind} · ${when(m.created_at)}${m.updated_at.getTime() !== m.created_at.getTime() ? ' · edited' : ''}</span>${unread ? html`<span class="badge unread">Unread</span>` : ''}${m.needs_input ? html`<span class="badge ask">Waiting for your answer</span>` : ''}</div><div class="markdown">${new Html(renderMarkdown(m.text))}</div></li>`;
}

/** The first line of a message as plain text (its Markdown syntax left out), at most 160 characters. */
function excerpt(text: string): string {
  const line = markdownText(text.split('\n').find((l) => l.trim() !== '') ?? '');
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** A moment as the person reads it, in their time zone. */
export function formatTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(at);
}

function formatDay(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium' }).format(at);
}
