/**
 * The item page at `/artifacts/<id>`, rendered: the item (title, rendered notes, status, due
 * date, reminder, repeat, labels, parent), the form that edits it (title, notes with a
 * preview, the value of every property of its list, the task fields), its subtasks, its
 * attachments (app.js's drop zone over the upload slots) and the chat with a reply box. The
 * routes that answer these forms are items.ts. Server-rendered and usable without JavaScript;
 * Markdown is rendered safely.
 * @see openapi/openapi.yaml components/schemas/Item (webUrl), get_item
 */
import type { Context } from 'koa';
import { timeZoneOf } from '../domain/accounts/accounts.js';
import { chatForPage, type ChatMessageRow } from '../domain/chat/chat.js';
import { isUuid } from '../domain/ids.js';
import { Html, html } from './html.js';
import { refusal, type PageKit } from './page-kit.js';
import { formatDay, formatTime } from './format.js';
import type { WebUser } from './sessions.js';
import { renderMarkdown } from './markdown.js';
import { fieldInputs, keepsDueDate, keepsStatus, shownFields, STATUS_TEXT, type Clock, type Draft, type Item } from './item-form.js';

export const CONVERSATION_PATH = '/conversation';
const MAX_MESSAGE = 20000;

export interface ItemPageOptions {
  status?: number;
  error?: string | null;
  notice?: string | null;
  /** What the person typed, shown again (after a refusal, or for a preview without JavaScript). */
  draft?: Draft;
}

export function notFoundPage(kit: PageKit, ctx: Context, user: WebUser): void {
  kit.show(
    ctx,
    user,
    'No such item',
    html`<div class="card"><p>This item is not in your workspace: it may have been deleted, or it belongs to someone else.</p><p><a href="${CONVERSATION_PATH}">Back to your conversation</a></p></div>`,
    { status: 404, section: 'lists' },
  );
}

/** How this person's page writes instants and days: in their time zone, in words the API reads back. */
export async function clockOf(kit: PageKit, user: WebUser): Promise<Clock> {
  const timezone = await timeZoneOf(kit.deps.db, user.id);
  return { time: (d) => formatTime(d, timezone), day: (d) => formatDay(d, timezone) };
}

/** The item as get_item answers it to the person, or null when it is not theirs to see (or gone). */
export async function readItem(kit: PageKit, user: WebUser, id: string, withImages = false): Promise<Item | null> {
  if (!isUuid(id)) return null;
  try {
    return await kit.call(user, 'get_item', { id, ...(withImages ? { includeImageUrls: true } : {}) });
  } catch (err) {
    if (refusal(err).status === 404) return null;
    throw err;
  }
}

/** The whole item page; after a refusal or a preview it shows what the person typed (`draft`). */
export async function showItem(kit: PageKit, ctx: Context, user: WebUser, item: Item, options: ItemPageOptions = {}): Promise<void> {
  const clock = await clockOf(kit, user);
  const parent = item.parentId ? await readItem(kit, user, item.parentId) : null;
  const messages = await chatForPage(kit.deps.db, item.id);
  kit.show(
    ctx,
    user,
    item.title?.trim() || '(untitled)',
    html`${summaryCard(kit, ctx, item, parent, clock)}${editCard(kit, ctx, item, clock, options)}${subtasksCard(kit, ctx, item)}${attachmentsCard(kit, ctx, item)}${chatCard(kit, ctx, item, messages, clock)}`,
    { status: options.status ?? 200, error: options.error ?? null, notice: options.notice ?? null, section: 'lists' },
  );
}

function statusButton(kit: PageKit, ctx: Context, target: { id: string; title: string | null; taskStatus: string | null }, back: string, named = false): Html {
  const done = target.taskStatus === 'completed';
  const label = done ? 'Reopen' : 'Complete';
  return kit.button(ctx, `/artifacts/${target.id}/status`, label, {
    kind: done ? 'secondary' : '',
    fields: { status: done ? 'todo' : 'completed', back },
    ...(named ? { title: `${label} “${target.title?.trim() || '(untitled)'}”` } : {}),
  });
}

function summaryCard(kit: PageKit, ctx: Context, item: Item, parent: Item | null, clock: Clock): Html {
  // A row shared with the person lives on its owner's list, which is not theirs to open.
  const facts: Html[] = [
    item.editable ? html`<span>List: ${item.listName} (shared with you)</span>` : html`<span>List: <a href="/lists/${item.listId}">${item.listName}</a></span>`,
  ];
  if (keepsStatus(item)) facts.push(html`<span>Status: <strong>${STATUS_TEXT[item.taskStatus ?? 'todo']}</strong></span>`);
  if (keepsDueDate(item)) {
    const due = item.dueAt ? (item.hasDueTime ? clock.time(new Date(item.dueAt)) : clock.day(new Date(item.dueAt))) : 'no due date';
    facts.push(html`<span>Due: ${due}</span>`);
    if (item.recurrence) facts.push(html`<span>Repeats ${item.recurrence.text}</span>`);
    if (item.reminderAt) facts.push(html`<span>Reminder: ${clock.time(new Date(item.reminderAt))}</span>`);
  }
  if (item.labels?.length) facts.push(html`<span>Labels: ${item.labels.join(', ')}</span>`);
  if (item.assignedAgent) facts.push(html`<span>Assigned to ${item.assignedAgent}</span>`);
  const up = parent ? html`<p>Subtask of <a href="/artifacts/${parent.id}">${parent.title?.trim() || '(untitled)'}</a></p>` : '';
  const body = item.body?.trim() ? html`<div class="markdown">${new Html(renderMarkdown(item.body))}</div>` : html`<p class="muted">No notes yet.</p>`;
  const actions = item.editable
    ? html`<div class="item-actions">${item.editable === 'all' && keepsStatus(item) ? statusButton(kit, ctx, item, `/artifacts/${item.id}`) : ''}</div>`
    : html`<div class="item-actions">${keepsStatus(item) ? statusButton(kit, ctx, item, `/artifacts/${item.id}`) : ''}${kit.button(ctx, `/artifacts/${item.id}/delete`, 'Delete', { kind: 'danger', title: 'Delete: move this item to the trash' })}<a class="button secondary" href="/lists/${item.listId}">Back to ${item.listName}</a></div>`;
  return html`<div class="card">${up}<div class="meta">${facts}</div>${body}${actions}</div>`;
}

function editCard(kit: PageKit, ctx: Context, item: Item, clock: Clock, options: ItemPageOptions): Html {
  const shown = shownFields(item, clock);
  const draft = options.draft;
  const fields = { ...shown, ...draft?.fields };
  const bodyText = draft?.body ?? item.body ?? '';
  // The preview shows the notes as they stand (saved, or the draft) from the start; typing updates it.
  const preview = bodyText.trim() ? new Html(renderMarkdown(bodyText)) : '';
  // The textarea's first newline is dropped by HTML parsing: one is written so a body that starts with one keeps it.
  return html`<section class="card" aria-labelledby="edit-heading"><h2 id="edit-heading">Edit</h2>
<form method="post" action="/artifacts/${item.id}" class="item-form">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<input type="hidden" name="was" value="${JSON.stringify(draft?.was ?? shown)}">
<input type="hidden" name="bodyVersion" value="${draft?.bodyVersion ?? item.bodyVersion}">
<label for="f-title">Title</label><input type="text" id="f-title" name="title" value="${fields.title}" maxlength="2000">
<label for="f-body">Notes (Markdown)</label>
<textarea id="f-body" name="body" rows="8" class="code" aria-describedby="preview-label" hx-post="/artifacts/${item.id}/preview" hx-trigger="input changed delay:400ms" hx-target="#preview">
${bodyText}</textarea>
<div class="preview"><span class="muted" id="preview-label">Preview</span><div id="preview" class="markdown" aria-live="polite">${preview}</div></div>
${item.editable === 'titleAndBody' ? html`<p class="muted">Shared with you for its title and notes: its status, dates, labels and values are its owner's (shown above).</p>` : fieldInputs(item, fields)}
<div class="item-actions"><button type="submit" name="intent" value="save">Save</button><button type="submit" name="intent" value="preview" class="secondary no-js">Preview</button></div>
</form></section>`;
}

function subtasksCard(kit: PageKit, ctx: Context, item: Item): Html {
  const back = `/artifacts/${item.id}`;
  const children = item.children ?? [];
  const list = children.length
    ? html`<ul class="tasks">${children.map(
        (c) =>
          html`<li><span class="what"><a href="/artifacts/${c.id}"${c.taskStatus === 'completed' ? new Html(' class="done"') : ''}>${c.title?.trim() || '(untitled)'}</a>${c.taskStatus ? html` <span class="muted">${STATUS_TEXT[c.taskStatus]}</span>` : ''}</span>${keepsStatus(item) && item.editable !== 'titleAndBody' ? statusButton(kit, ctx, c, back, true) : ''}</li>`,
      )}</ul>`
    : html`<p class="muted">No subtasks.</p>`;
  // Subtasks go on the parent's list, so only the owner adds them.
  const add = item.editable
    ? ''
    : html`<form method="post" action="/artifacts/${item.id}/subtasks" class="row"><input type="hidden" name="csrf" value="${kit.csrf(ctx)}"><div><label for="new-subtask">Add a subtask</label><input type="text" id="new-subtask" name="title" required maxlength="2000"></div><button type="submit">Add subtask</button></form>`;
  return html`<section class="card" aria-labelledby="subtasks-heading"><h2 id="subtasks-heading">Subtasks</h2>${list}
${add}</section>`;
}

function attachmentsCard(kit: PageKit, ctx: Context, item: Item): Html {
  const images = item.attachments.filter((a) => a.url);
  const alts = new Map(item.bodyImages.map((b) => [b.bucketPath, b.alt]));
  const shown = images.length
    ? html`<ul class="attachments">${images.map(
        (a, i) => html`<li><a href="${a.url}"><img src="${a.url}" alt="${alts.get(a.bucketPath) || `Attached image ${i + 1} of ${images.length}`}"></a></li>`,
      )}</ul>`
    : html`<p class="muted">No attachments yet.</p>`;
  const base = `/artifacts/${item.id}`;
  // Images on a row shared one by one are its owner's.
  const add =
    item.editable === 'titleAndBody'
      ? ''
      : html`<p class="no-js muted">Adding images here needs JavaScript; an agent can attach them through the API (upload slots).</p>
<form class="dropzone js-only" data-slots="${base}/uploads" data-attach="${base}/attachments">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<label for="attach-files">Add images: drop them here, or choose</label>
<input type="file" id="attach-files" name="images" accept="image/png,image/jpeg,image/webp,image/heic" multiple>
<p role="status" class="muted"></p>
</form>`;
  return html`<section class="card" aria-labelledby="attachments-heading"><h2 id="attachments-heading">Attachments</h2>${shown}
${add}</section>`;
}

function chatCard(kit: PageKit, ctx: Context, item: Item, messages: ChatMessageRow[], clock: Clock): Html {
  const chat = messages.length
    ? html`<ol class="chat">${messages.map((m) => messageItem(m, clock.time))}</ol>`
    : html`<p class="muted">No messages yet. Write to the agent working on this below.</p>`;
  return html`<div class="card" id="chat"><h2>Chat</h2>${chat}
<form method="post" action="/artifacts/${item.id}/messages">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<label for="message">Your reply</label>
<textarea id="message" name="message" required maxlength="${MAX_MESSAGE}"></textarea>
<button type="submit">Send</button>
</form></div>`;
}

export function messageItem(m: ChatMessageRow, when: (d: Date) => string): Html {
  const unread = m.author_kind !== 'person' && m.read_at === null;
  const classes = [m.author_kind, unread ? 'unread' : ''].filter(Boolean).join(' ');
  const kind = m.author_kind === 'agent' ? 'agent' : m.author_kind === 'service' ? 'listkeeper' : 'you';
  return html`<li class="${classes}" data-kind="${m.author_kind}"><div class="meta"><span class="who">${m.author_name}</span><span class="muted">${kind} · ${when(m.created_at)}${m.updated_at.getTime() !== m.created_at.getTime() ? ' · edited' : ''}</span>${unread ? html`<span class="badge unread">Unread</span>` : ''}${m.needs_input ? html`<span class="badge ask">Waiting for your answer</span>` : ''}</div><div class="markdown">${new Html(renderMarkdown(m.text))}</div></li>`;
}
