/**
 * The person's side of items and chats: the routes of the item page at `/artifacts/<id>`
 * (rendered by item-page.ts) and the main conversation at `/conversation`. Saving the item
 * (only what changed), previewing its notes, Complete and Reopen, a subtask, deleting, the
 * upload slots and attaching images (JSON for app.js), and a reply in the chat. Every write
 * goes through an operation as the person (`kit.call`), so a refusal is the sentence REST and
 * MCP answer.
 * @see openapi/openapi.yaml get_item, update_items, post_person_message
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import type { OpInput, OpOutput } from '../core/context.js';
import { timeZoneOf } from '../domain/accounts/accounts.js';
import { mainConversation } from '../domain/chat/chat.js';
import { isUuid } from '../domain/ids.js';
import { Html, html, sendPage } from './html.js';
import { noticeOf, refusal, type PageKit } from './page-kit.js';
import { formatTime, shorten } from './format.js';
import { markdownText, renderMarkdown } from './markdown.js';
import { shownFields, submittedFields, updateInput, wasFields, type Draft } from './item-form.js';
import { clockOf, CONVERSATION_PATH, notFoundPage, readItem, showItem } from './item-page.js';

export { CONVERSATION_PATH } from './item-page.js';

/** The notices the item page shows after a redirect, by code. */
const NOTICES: Record<string, string> = { saved: 'Saved.', unchanged: 'Nothing changed, so nothing was saved.', subtask: 'Subtask added.' };

/** Said when the notes changed between reading the page and saving it. */
const NOTES_CHANGED =
  'These notes changed while you were editing them (an agent, or you in another window), so nothing was saved. The notes as they are now are at the top of the page and your version is in the form: save again to replace them with yours.';

/** A JSON answer for app.js (the upload slots and attaching). */
function answerJson(ctx: Context, status: number, body: object): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
}

/** The item page and the main conversation: small handlers over the page kit. */
export function registerItemPages(router: Router, kit: PageKit): void {
  router.get('/artifacts/:id', (ctx) => showItemPage(kit, ctx));
  router.post('/artifacts/:id', (ctx) => saveItem(kit, ctx));
  router.post('/artifacts/:id/preview', (ctx) => previewNotes(kit, ctx));
  router.post('/artifacts/:id/status', (ctx) => setStatus(kit, ctx));
  router.post('/artifacts/:id/subtasks', (ctx) => addSubtask(kit, ctx));
  router.post('/artifacts/:id/delete', (ctx) => deleteItem(kit, ctx));
  router.post('/artifacts/:id/uploads', (ctx) => uploadSlot(kit, ctx));
  router.post('/artifacts/:id/attachments', (ctx) => attachImages(kit, ctx));
  router.post('/artifacts/:id/messages', (ctx) => postMessage(kit, ctx));
  router.get(CONVERSATION_PATH, (ctx) => showConversation(kit, ctx));
}

async function showItemPage(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (!user) return;
  const item = await readItem(kit, user, ctx.params.id!, true);
  if (!item) return notFoundPage(kit, ctx, user);
  await showItem(kit, ctx, user, item, { notice: noticeOf(NOTICES, ctx.query.notice) });
  // Shown once as unread; seen from now on.
  await kit.call(user, 'mark_chat_read', { id: item.id });
}

/** Save (only what changed, through update_items) or, without JavaScript, preview the notes. */
async function saveItem(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx, 'large');
  if (!got) return;
  const { user, form, all } = got;
  const item = await readItem(kit, user, ctx.params.id!, true);
  if (!item) return notFoundPage(kit, ctx, user);
  const clock = await clockOf(kit, user);
  const draft: Draft = {
    fields: submittedFields(item, all, clock),
    was: wasFields(form.was, shownFields(item, clock)),
    body: form.body ?? item.body ?? '',
    bodyVersion: form.bodyVersion ?? item.bodyVersion,
  };
  if (form.intent === 'preview') return showItem(kit, ctx, user, item, { draft });
  const input = updateInput(item, draft);
  if (!input) return kit.redirect(ctx, `/artifacts/${item.id}?notice=unchanged`);
  try {
    await kit.call(user, 'update_items', input);
  } catch (err) {
    const refused = refusal(err);
    // The notes changed since the page was read (an agent, another window): the rewrite was
    // refused and nothing saved. Show the notes as they are now, keep the person's text, and
    // base it on the current version, so saving again replaces them knowingly.
    const current = input.items[0]?.edits ? await readItem(kit, user, item.id) : null;
    if (current && current.bodyVersion !== draft.bodyVersion)
      return showItem(kit, ctx, user, current, { draft: { ...draft, bodyVersion: current.bodyVersion }, status: refused.status, error: NOTES_CHANGED });
    return showItem(kit, ctx, user, item, { draft, status: refused.status, error: refused.message });
  }
  kit.redirect(ctx, `/artifacts/${item.id}?notice=saved`);
}

/** The notes rendered as they are typed (htmx swaps the fragment into the preview). */
async function previewNotes(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx, 'large');
  if (!got) return;
  sendPage(ctx, 200, renderMarkdown(got.form.body ?? ''));
}

/** Complete or reopen (the item's own button, or a subtask's on its parent's page). */
async function setStatus(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  const item = await readItem(kit, user, ctx.params.id!, true);
  if (!item) return notFoundPage(kit, ctx, user);
  try {
    await kit.call(user, 'update_items', { items: [{ itemId: item.id }], taskStatus: form.status as OpInput<'update_items'>['taskStatus'] });
  } catch (err) {
    const refused = refusal(err);
    return showItem(kit, ctx, user, item, { status: refused.status, error: refused.message });
  }
  kit.redirect(ctx, form.back || `/artifacts/${item.id}`);
}

async function addSubtask(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  const item = await readItem(kit, user, ctx.params.id!, true);
  if (!item) return notFoundPage(kit, ctx, user);
  const title = (form.title ?? '').trim();
  if (!title) return showItem(kit, ctx, user, item, { status: 400, error: 'Write the title of the subtask first.' });
  let reason: string | undefined;
  try {
    const created = await kit.call(user, 'create_items', { listId: item.listId!, items: [{ title, parentId: item.id }] });
    reason = created.failed[0]?.reason;
  } catch (err) {
    const refused = refusal(err);
    return showItem(kit, ctx, user, item, { status: refused.status, error: refused.message });
  }
  if (reason) return showItem(kit, ctx, user, item, { status: 409, error: reason });
  kit.redirect(ctx, `/artifacts/${item.id}?notice=subtask#subtasks-heading`);
}

/** To the trash (restore_deleted brings it back), then to its list. */
async function deleteItem(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user } = got;
  const item = await readItem(kit, user, ctx.params.id!, true);
  if (!item) return notFoundPage(kit, ctx, user);
  let result: OpOutput<'delete_items'>;
  try {
    result = await kit.call(user, 'delete_items', { itemIds: [item.id] });
  } catch (err) {
    const refused = refusal(err);
    return showItem(kit, ctx, user, item, { status: refused.status, error: refused.message });
  }
  if (result.refused.length) return showItem(kit, ctx, user, item, { status: 409, error: 'This item is shared with you: only its owner can delete it.' });
  kit.redirect(ctx, `/lists/${item.listId}`);
}

/** An upload slot for one image (app.js PUTs the file to it), as JSON. */
async function uploadSlot(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.postedJson(ctx);
  if (!got) return;
  const item = await readItem(kit, got.user, ctx.params.id!);
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
}

/** Attaches uploaded images (their bucket paths) to the item through update_items, as JSON. */
async function attachImages(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.postedJson(ctx);
  if (!got) return;
  const item = await readItem(kit, got.user, ctx.params.id!);
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
}

async function postMessage(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  const id = ctx.params.id!;
  if (!isUuid(id)) return notFoundPage(kit, ctx, user);
  try {
    await kit.call(user, 'post_person_message', { id, message: (form.message ?? '').replace(/\r\n/g, '\n') });
  } catch (err) {
    const refused = refusal(err);
    if (refused.status === 404) return notFoundPage(kit, ctx, user);
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
}

async function showConversation(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (!user) return;
  const timezone = await timeZoneOf(kit.deps.db, user.id);
  const lines = await mainConversation(kit.deps.db, user.id);
  const list = lines.length
    ? html`<ul class="lines">${lines.map(
        (l) =>
          html`<li${l.unread ? new Html(' class="unread"') : ''}>${l.unread ? html`<span class="badge unread">Unread</span> ` : ''}${l.needsInput ? html`<span class="badge ask">Waiting for you</span> ` : ''}<strong>${l.agentName}</strong> on <a href="/artifacts/${l.itemId}#chat">${l.itemTitle?.trim() || '(untitled)'}</a>: ${excerpt(l.text)} <span class="muted">${formatTime(l.createdAt, timezone)}</span></li>`,
      )}</ul>`
    : html`<p class="muted">No agent has written to you yet.</p>`;
  kit.show(ctx, user, 'Conversation', html`<div class="card">${list}</div>`, { section: 'conversation' });
}

/** The first line of a message as plain text (its Markdown syntax left out), at most 160 characters. */
function excerpt(text: string): string {
  return shorten(markdownText(text.split('\n').find((l) => l.trim() !== '') ?? ''), 160);
}
