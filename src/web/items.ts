/**
 * The person's side of items and chats: the item page at `/artifacts/<id>` and the main
 * conversation at `/conversation`. The item page shows the item (title, rendered notes,
 * status, due date, reminder, repeat, labels, parent), edits it (title, notes with a preview,
 * the value of every property of its list, the task fields), its subtasks, its attachments
 * (uploaded through the upload slots) and the chat with a reply box. Every write goes through
 * an operation as the person (`kit.call`), so a refusal is the sentence REST and MCP answer.
 * Server-rendered and usable without JavaScript; htmx adds the live preview and app.js the
 * drop zone. Markdown is rendered safely.
 * @see openapi/openapi.yaml components/schemas/Item (webUrl), get_item, update_items, post_chat_message
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import type { OpInput, OpOutput } from '../core/context.js';
import { timeZoneOf } from '../domain/accounts/accounts.js';
import { chatForPage, mainConversation, type ChatMessageRow } from '../domain/chat/chat.js';
import { Html, html, sendPage } from './html.js';
import { noticeOf, refusal, type PageKit } from './page-kit.js';
import { isUuid } from '../domain/ids.js';
import { formatDay, formatTime, shorten } from './format.js';
import type { WebUser } from './sessions.js';
import { markdownText, renderMarkdown } from './markdown.js';
import {
  fieldInputs,
  keepsDueDate,
  keepsStatus,
  shownFields,
  STATUS_TEXT,
  submittedFields,
  updateInput,
  wasFields,
  type Clock,
  type Draft,
  type Item,
} from './item-form.js';

export const CONVERSATION_PATH = '/conversation';
const MAX_MESSAGE = 20000;

/** The notices the item page shows after a redirect, by code. */
const NOTICES: Record<string, string> = { saved: 'Saved.', unchanged: 'Nothing changed, so nothing was saved.', subtask: 'Subtask added.' };

/** Said when the notes changed between reading the page and saving it. */
const NOTES_CHANGED =
  'These notes changed while you were editing them (an agent, or you in another window), so nothing was saved. The notes as they are now are at the top of the page and your version is in the form: save again to replace them with yours.';

interface ItemPageOptions {
  status?: number;
  error?: string | null;
  notice?: string | null;
  /** What the person typed, shown again (after a refusal, or for a preview without JavaScript). */
  draft?: Draft;
  /** Show the preview of the draft's notes. */
  preview?: boolean;
}

/** A JSON answer for app.js (the upload slots and attaching). */
function answerJson(ctx: Context, status: number, body: object): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

/** The item page and the main conversation. */
export function registerItemPages(router: Router, kit: PageKit): void {
  const { db } = kit.deps;

  function notFoundPage(ctx: Context, user: WebUser): void {
    kit.show(
      ctx,
      user,
      'No such item',
      html`<div class="card"><p>This item is not in your workspace: it may have been deleted, or it belongs to someone else.</p><p><a href="${CONVERSATION_PATH}">Back to your conversation</a></p></div>`,
      { status: 404, section: 'lists' },
    );
  }

  /** How this person's page writes instants and days: in their time zone, in words the API reads back. */
  async function clockOf(user: WebUser): Promise<Clock> {
    const timezone = await timeZoneOf(db, user.id);
    return { time: (d) => formatTime(d, timezone), day: (d) => formatDay(d, timezone) };
  }

  /** The item as get_item answers it to the person, or null when it is not theirs to see (or gone). */
  async function readItem(user: WebUser, id: string, withImages = false): Promise<Item | null> {
    if (!isUuid(id)) return null;
    try {
      return await kit.call(user, 'get_item', { id, ...(withImages ? { includeImageUrls: true } : {}) });
    } catch (err) {
      if (refusal(err).status === 404) return null;
      throw err;
    }
  }

  /** The whole item page; after a refusal or a preview it shows what the person typed (`draft`). */
  async function showItem(ctx: Context, user: WebUser, item: Item, options: ItemPageOptions = {}): Promise<void> {
    const clock = await clockOf(user);
    const parent = item.parentId ? await readItem(user, item.parentId) : null;
    const messages = await chatForPage(db, item.id);
    kit.show(
      ctx,
      user,
      item.title?.trim() || '(untitled)',
      html`${summaryCard(ctx, item, parent, clock)}${editCard(ctx, item, clock, options)}${subtasksCard(ctx, item)}${attachmentsCard(ctx, item)}${chatCard(ctx, item, messages, clock)}`,
      { status: options.status ?? 200, error: options.error ?? null, notice: options.notice ?? null, section: 'lists' },
    );
  }

  function statusButton(ctx: Context, target: { id: string; title: string | null; taskStatus: string | null }, back: string, named = false): Html {
    const done = target.taskStatus === 'completed';
    const label = done ? 'Reopen' : 'Complete';
    return kit.button(ctx, `/artifacts/${target.id}/status`, label, {
      kind: done ? 'secondary' : '',
      fields: { status: done ? 'todo' : 'completed', back },
      ...(named ? { title: `${label} “${target.title?.trim() || '(untitled)'}”` } : {}),
    });
  }

  function summaryCard(ctx: Context, item: Item, parent: Item | null, clock: Clock): Html {
    // A row shared with the person lives on its owner's list, which is not theirs to open.
    const facts: Html[] = [
      item.editable
        ? html`<span>List: ${item.listName} (shared with you)</span>`
        : html`<span>List: <a href="/lists/${item.listId}">${item.listName}</a></span>`,
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
      ? html`<div class="item-actions">${item.editable === 'all' && keepsStatus(item) ? statusButton(ctx, item, `/artifacts/${item.id}`) : ''}</div>`
      : html`<div class="item-actions">${keepsStatus(item) ? statusButton(ctx, item, `/artifacts/${item.id}`) : ''}${kit.button(ctx, `/artifacts/${item.id}/delete`, 'Delete', { kind: 'danger', title: 'Delete: move this item to the trash' })}<a class="button secondary" href="/lists/${item.listId}">Back to ${item.listName}</a></div>`;
    return html`<div class="card">${up}<div class="meta">${facts}</div>${body}${actions}</div>`;
  }

  function editCard(ctx: Context, item: Item, clock: Clock, options: ItemPageOptions): Html {
    const shown = shownFields(item, clock);
    const draft = options.draft;
    const fields = { ...shown, ...draft?.fields };
    const bodyText = draft?.body ?? item.body ?? '';
    const preview = options.preview ? new Html(renderMarkdown(bodyText)) : '';
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

  function subtasksCard(ctx: Context, item: Item): Html {
    const back = `/artifacts/${item.id}`;
    const children = item.children ?? [];
    const list = children.length
      ? html`<ul class="tasks">${children.map(
          (c) =>
            html`<li><span class="what"><a href="/artifacts/${c.id}"${c.taskStatus === 'completed' ? new Html(' class="done"') : ''}>${c.title?.trim() || '(untitled)'}</a>${c.taskStatus ? html` <span class="muted">${STATUS_TEXT[c.taskStatus]}</span>` : ''}</span>${keepsStatus(item) && item.editable !== 'titleAndBody' ? statusButton(ctx, c, back, true) : ''}</li>`,
        )}</ul>`
      : html`<p class="muted">No subtasks.</p>`;
    // Subtasks go on the parent's list, so only the owner adds them.
    const add = item.editable
      ? ''
      : html`<form method="post" action="/artifacts/${item.id}/subtasks" class="row"><input type="hidden" name="csrf" value="${kit.csrf(ctx)}"><div><label for="new-subtask">Add a subtask</label><input type="text" id="new-subtask" name="title" required maxlength="2000"></div><button type="submit">Add subtask</button></form>`;
    return html`<section class="card" aria-labelledby="subtasks-heading"><h2 id="subtasks-heading">Subtasks</h2>${list}
${add}</section>`;
  }

  function attachmentsCard(ctx: Context, item: Item): Html {
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

  function chatCard(ctx: Context, item: Item, messages: ChatMessageRow[], clock: Clock): Html {
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

  router.get('/artifacts/:id', async (ctx) => {
    const user = await kit.signedIn(ctx);
    if (!user) return;
    const item = await readItem(user, ctx.params.id!, true);
    if (!item) return notFoundPage(ctx, user);
    await showItem(ctx, user, item, { notice: noticeOf(NOTICES, ctx.query.notice) });
    // Shown once as unread; seen from now on.
    await kit.call(user, 'mark_chat_read', { id: item.id });
  });

  /** Save (only what changed, through update_items) or, without JavaScript, preview the notes. */
  router.post('/artifacts/:id', async (ctx) => {
    const got = await kit.posted(ctx, 'large');
    if (!got) return;
    const { user, form, all } = got;
    const item = await readItem(user, ctx.params.id!, true);
    if (!item) return notFoundPage(ctx, user);
    const clock = await clockOf(user);
    const draft: Draft = {
      fields: submittedFields(item, all, clock),
      was: wasFields(form.was, shownFields(item, clock)),
      body: form.body ?? item.body ?? '',
      bodyVersion: form.bodyVersion ?? item.bodyVersion,
    };
    if (form.intent === 'preview') return showItem(ctx, user, item, { draft, preview: true });
    const input = updateInput(item, draft);
    if (!input) return kit.redirect(ctx, `/artifacts/${item.id}?notice=unchanged`);
    try {
      await kit.call(user, 'update_items', input);
    } catch (err) {
      const refused = refusal(err);
      // The notes changed since the page was read (an agent, another window): the rewrite was
      // refused and nothing saved. Show the notes as they are now, keep the person's text, and
      // base it on the current version, so saving again replaces them knowingly.
      const current = input.items[0]?.edits ? await readItem(user, item.id) : null;
      if (current && current.bodyVersion !== draft.bodyVersion)
        return showItem(ctx, user, current, { draft: { ...draft, bodyVersion: current.bodyVersion }, status: refused.status, error: NOTES_CHANGED });
      return showItem(ctx, user, item, { draft, status: refused.status, error: refused.message });
    }
    kit.redirect(ctx, `/artifacts/${item.id}?notice=saved`);
  });

  /** The notes rendered as they are typed (htmx swaps the fragment into the preview). */
  router.post('/artifacts/:id/preview', async (ctx) => {
    const got = await kit.posted(ctx, 'large');
    if (!got) return;
    sendPage(ctx, 200, renderMarkdown(got.form.body ?? ''));
  });

  /** Complete or reopen (the item's own button, or a subtask's on its parent's page). */
  router.post('/artifacts/:id/status', async (ctx) => {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user, form } = got;
    const item = await readItem(user, ctx.params.id!, true);
    if (!item) return notFoundPage(ctx, user);
    try {
      await kit.call(user, 'update_items', { items: [{ itemId: item.id }], taskStatus: form.status as OpInput<'update_items'>['taskStatus'] });
    } catch (err) {
      const refused = refusal(err);
      return showItem(ctx, user, item, { status: refused.status, error: refused.message });
    }
    kit.redirect(ctx, form.back || `/artifacts/${item.id}`);
  });

  router.post('/artifacts/:id/subtasks', async (ctx) => {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user, form } = got;
    const item = await readItem(user, ctx.params.id!, true);
    if (!item) return notFoundPage(ctx, user);
    const title = (form.title ?? '').trim();
    if (!title) return showItem(ctx, user, item, { status: 400, error: 'Write the title of the subtask first.' });
    let reason: string | undefined;
    try {
      const created = await kit.call(user, 'create_items', { listId: item.listId!, items: [{ title, parentId: item.id }] });
      reason = created.failed[0]?.reason;
    } catch (err) {
      const refused = refusal(err);
      return showItem(ctx, user, item, { status: refused.status, error: refused.message });
    }
    if (reason) return showItem(ctx, user, item, { status: 409, error: reason });
    kit.redirect(ctx, `/artifacts/${item.id}?notice=subtask#subtasks-heading`);
  });

  /** To the trash (restore_deleted brings it back), then to its list. */
  router.post('/artifacts/:id/delete', async (ctx) => {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user } = got;
    const item = await readItem(user, ctx.params.id!, true);
    if (!item) return notFoundPage(ctx, user);
    let result: OpOutput<'delete_items'>;
    try {
      result = await kit.call(user, 'delete_items', { itemIds: [item.id] });
    } catch (err) {
      const refused = refusal(err);
      return showItem(ctx, user, item, { status: refused.status, error: refused.message });
    }
    if (result.refused.length) return showItem(ctx, user, item, { status: 409, error: 'This item is shared with you: only its owner can delete it.' });
    kit.redirect(ctx, `/lists/${item.listId}`);
  });

  /** An upload slot for one image (app.js PUTs the file to it), as JSON. */
  router.post('/artifacts/:id/uploads', async (ctx) => {
    const got = await kit.postedJson(ctx);
    if (!got) return;
    const item = await readItem(got.user, ctx.params.id!);
    if (!item) return answerJson(ctx, 404, { error: 'This item is not in your workspace.' });
    try {
      const { uploads } = await kit.call(got.user, 'create_image_upload', {
        mimeType: got.form.mimeType as OpInput<'create_image_upload'>['mimeType'],
        count: 1,
      });
      answerJson(ctx, 200, uploads[0]!);
    } catch (err) {
      const refused = refusal(err);
      answerJson(ctx, refused.status, { error: refused.message });
    }
  });

  /** Attaches uploaded images (their bucket paths) to the item through update_items, as JSON. */
  router.post('/artifacts/:id/attachments', async (ctx) => {
    const got = await kit.postedJson(ctx);
    if (!got) return;
    const item = await readItem(got.user, ctx.params.id!);
    if (!item) return answerJson(ctx, 404, { error: 'This item is not in your workspace.' });
    const paths = got.all.getAll('bucketPath');
    if (!paths.length) return answerJson(ctx, 400, { error: 'No uploaded image was named.' });
    try {
      const result = await kit.call(got.user, 'update_items', { items: [{ itemId: item.id, imageUrls: paths }] });
      if (result.imageFailures.length) return answerJson(ctx, 409, { error: result.imageFailures.map((f) => f.reason).join(' ') });
      answerJson(ctx, 200, { attached: result.imagesAttached });
    } catch (err) {
      const refused = refusal(err);
      answerJson(ctx, refused.status, { error: refused.message });
    }
  });

  router.post('/artifacts/:id/messages', async (ctx) => {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user, form } = got;
    const id = ctx.params.id!;
    if (!isUuid(id)) return notFoundPage(ctx, user);
    try {
      await kit.call(user, 'post_person_message', { id, message: (form.message ?? '').replace(/\r\n/g, '\n') });
    } catch (err) {
      const refused = refusal(err);
      if (refused.status === 404) return notFoundPage(ctx, user);
      return kit.show(
        ctx,
        user,
        'Nothing sent',
        html`<div class="card"><p class="error">${refused.message}</p><p><a href="/artifacts/${id}#chat">Back to the item</a></p></div>`,
        { status: refused.status, section: 'lists' },
      );
    }
    ctx.status = 303;
    ctx.redirect(`/artifacts/${id}#chat`);
  });

  router.get(CONVERSATION_PATH, async (ctx) => {
    const user = await kit.signedIn(ctx);
    if (!user) return;
    const timezone = await timeZoneOf(db, user.id);
    const lines = await mainConversation(db, user.id);
    const list = lines.length
      ? html`<ul class="lines">${lines.map(
          (l) =>
            html`<li${l.unread ? new Html(' class="unread"') : ''}>${l.unread ? html`<span class="badge unread">Unread</span> ` : ''}${l.needsInput ? html`<span class="badge ask">Waiting for you</span> ` : ''}<strong>${l.agentName}</strong> on <a href="/artifacts/${l.itemId}#chat">${l.itemTitle?.trim() || '(untitled)'}</a>: ${excerpt(l.text)} <span class="muted">${formatTime(l.createdAt, timezone)}</span></li>`,
        )}</ul>`
      : html`<p class="muted">No agent has written to you yet.</p>`;
    kit.show(ctx, user, 'Conversation', html`<div class="card">${list}</div>`, { section: 'conversation' });
  });
}

function messageItem(m: ChatMessageRow, when: (d: Date) => string): Html {
  const unread = m.author_kind !== 'person' && m.read_at === null;
  const classes = [m.author_kind, unread ? 'unread' : ''].filter(Boolean).join(' ');
  const kind = m.author_kind === 'agent' ? 'agent' : m.author_kind === 'service' ? 'listkeeper' : 'you';
  return html`<li class="${classes}" data-kind="${m.author_kind}"><div class="meta"><span class="who">${m.author_name}</span><span class="muted">${kind} · ${when(m.created_at)}${m.updated_at.getTime() !== m.created_at.getTime() ? ' · edited' : ''}</span>${unread ? html`<span class="badge unread">Unread</span>` : ''}${m.needs_input ? html`<span class="badge ask">Waiting for your answer</span>` : ''}</div><div class="markdown">${new Html(renderMarkdown(m.text))}</div></li>`;
}

/** The first line of a message as plain text (its Markdown syntax left out), at most 160 characters. */
function excerpt(text: string): string {
  return shorten(markdownText(text.split('\n').find((l) => l.trim() !== '') ?? ''), 160);
}
