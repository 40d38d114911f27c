/**
 * The person's lists: the home page (every list, Tasks first, quick add, a new list with its
 * properties) and the routes of one list's page (list-page.ts), whose views (a list, a table
 * with typed columns, a board) are list-views.ts. Every write is an operation called as the
 * person (kit.call), so the page shows the sentence REST and MCP would answer. With
 * JavaScript, htmx sends a changed cell or a moved card at once and swaps in the answer;
 * without it, each form has its own button.
 * @see openapi/openapi.yaml list_lists, create_list, update_list, query_items, create_items, update_items, delete_items
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { Html, html } from './html.js';
import { noticeOf, refusal, type PageKit } from './page-kit.js';
import type { WebUser } from './sessions.js';
import type { OpOutput } from '../core/context.js';
import { timeZoneOf } from '../domain/accounts/accounts.js';
import { isUuid } from '../domain/ids.js';
import { dueText, LISTS_PATH, quickAddForm, type List } from './list-views.js';
import { addItem, deleteItem, listPage, NOTICES, setLayout, setValue, showList, titleWithDue } from './list-page.js';

export { LISTS_PATH } from './list-views.js';

const PROPERTY_TYPES = ['text', 'number', 'select', 'multiSelect', 'date', 'checkbox', 'url', 'email'] as const;
const TYPE_NAMES: Record<string, string> = {
  text: 'Text',
  number: 'Number',
  select: 'Choice',
  multiSelect: 'Several choices',
  date: 'Date',
  checkbox: 'Check box',
  url: 'Link',
  email: 'Email',
};
/** New-list form: this many property rows (the API takes 50; more can be added later). */
const NEW_PROPERTY_ROWS = 5;

/** The routes of the lists pages: small handlers over the page kit. */
export function registerListPages(router: Router, kit: PageKit): void {
  router.get(LISTS_PATH, (ctx) => showHome(kit, ctx));
  router.post(LISTS_PATH, (ctx) => createList(kit, ctx));
  router.post('/quick-add', (ctx) => quickAdd(kit, ctx));
  router.get(`${LISTS_PATH}/:id`, (ctx) => showList(kit, ctx));
  router.post(`${LISTS_PATH}/:id/items`, (ctx) => addItem(kit, ctx));
  router.post(`${LISTS_PATH}/:id/layout`, (ctx) => setLayout(kit, ctx));
  router.post('/items/:id/value', (ctx) => setValue(kit, ctx));
  router.post('/items/:id/delete', (ctx) => deleteItem(kit, ctx));
}

async function showHome(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (user) await home(kit, ctx, user);
}

async function home(
  kit: PageKit,
  ctx: Context,
  user: WebUser,
  options: { status?: number; error?: string; form?: Record<string, string> } = {},
): Promise<void> {
  const { lists, tasksListId } = await kit.call(user, 'list_lists', {});
  const ordered = [...lists].sort((a, b) => Number(b.id === tasksListId) - Number(a.id === tasksListId));
  const form = options.form ?? {};
  // The new-list form opens from its button; it stays open when a list it sent was refused.
  const open = form.name !== undefined ? new Html(' open') : '';
  const body = html`${await addedNotice(kit, user, ctx.query.added)}
<section class="card" aria-labelledby="quick-h">
<h2 id="quick-h">Quick add</h2>
${quickAddForm(kit, ctx, form.title ?? '')}
</section>
<section aria-labelledby="lists-h">
<h2 id="lists-h">Your lists</h2>
<ul class="lists">${ordered.map(
    (list) =>
      html`<li><a href="${LISTS_PATH}/${list.id}"><strong>${list.icon ? `${list.icon} ` : ''}${list.name}</strong><br><span class="muted">${countText(list)} · ${list.role === 'tasks' ? 'tasks' : list.role === 'notes' ? 'notes' : `${list.properties.length} properties`}</span></a></li>`,
  )}</ul>
</section>
<details class="new-list"${open}><summary class="button secondary">New list</summary>
<section class="card" aria-labelledby="new-h">
<h2 id="new-h">New list</h2>
${newListForm(kit, ctx, form)}
</section></details>`;
  kit.show(ctx, user, 'Lists', body, {
    section: 'lists',
    ...(options.status ? { status: options.status } : {}),
    error: options.error ?? null,
    notice: noticeOf(NOTICES, ctx.query.done),
  });
}

/**
 * What quick add just made, named: its title (a link to it), its list and its due date, read
 * back as the person (an id that is not theirs, or gone, shows nothing).
 */
async function addedNotice(kit: PageKit, user: WebUser, added: unknown): Promise<Html | ''> {
  if (typeof added !== 'string' || !isUuid(added)) return '';
  let item: OpOutput<'get_item'>;
  try {
    item = await kit.call(user, 'get_item', { id: added });
  } catch (err) {
    if (refusal(err).status === 404) return '';
    throw err;
  }
  const due = item.dueAt ? `due ${dueText(item, await timeZoneOf(kit.deps.db, user.id))}` : 'with no due date';
  return html`<p class="notice" role="status">Added <a href="/artifacts/${item.id}">${item.title?.trim() || '(untitled)'}</a> to ${item.listName}, ${due}.</p>`;
}

function newListForm(kit: PageKit, ctx: Context, form: Record<string, string>): Html {
  const rows = Array.from({ length: NEW_PROPERTY_ROWS }, (_, i) => {
    const n = i + 1;
    return html`<fieldset class="row property-row"><legend class="visually-hidden">Property ${n}</legend>
<div><label for="p${n}-name">Property ${n}</label><input id="p${n}-name" name="p${n}-name" type="text" maxlength="100" value="${form[`p${n}-name`] ?? ''}"></div>
<div><label for="p${n}-type">Type</label><select id="p${n}-type" name="p${n}-type">${PROPERTY_TYPES.map(
      (t) => html`<option value="${t}"${form[`p${n}-type`] === t ? new Html(' selected') : ''}>${TYPE_NAMES[t]}</option>`,
    )}</select></div>
<div><label for="p${n}-options">Choices</label><input id="p${n}-options" name="p${n}-options" type="text" maxlength="2000" value="${form[`p${n}-options`] ?? ''}" placeholder="comma-separated"></div>
</fieldset>`;
  });
  return html`<form method="post" action="${LISTS_PATH}">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">
<label for="list-name">Name</label>
<input id="list-name" name="name" type="text" maxlength="200" required value="${form.name ?? ''}">
<label for="list-kind">Kind</label>
<select id="list-kind" name="kind"><option value="other"${form.kind === 'tasks' ? '' : new Html(' selected')}>Rows with the properties below</option><option value="tasks"${form.kind === 'tasks' ? new Html(' selected') : ''}>To-do list (status and due date)</option></select>
<label for="list-layout">Shown as</label>
<select id="list-layout" name="layout">${(['list', 'table', 'kanban'] as const).map(
    (l) => html`<option value="${l}"${form.layout === l ? new Html(' selected') : ''}>${l === 'kanban' ? 'board' : l}</option>`,
  )}</select>
<p class="muted">Properties are the columns of a table; a choice property can group a board. Leave a name empty to skip its row.</p>
${rows}
<button type="submit">Create the list</button>
</form>`;
}

async function createList(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  const properties = Array.from({ length: NEW_PROPERTY_ROWS }, (_, i) => i + 1)
    .filter((n) => (form[`p${n}-name`] ?? '').trim() !== '')
    .map((n) => {
      const type = form[`p${n}-type`] as (typeof PROPERTY_TYPES)[number];
      const options = splitOptions(form[`p${n}-options`] ?? '');
      return { name: form[`p${n}-name`]!.trim(), type, ...(type === 'select' || type === 'multiSelect' ? { options } : {}) };
    });
  const tasks = form.kind === 'tasks';
  let made: List;
  try {
    made = await kit.call(user, 'create_list', { name: form.name ?? '', ...(tasks ? { template: 'tasks' as const } : { properties }) });
  } catch (err) {
    const e = refusal(err);
    return home(kit, ctx, user, { status: e.status, error: e.message, form });
  }
  // The view, and a to-do list's own properties (the template takes none), are a second call.
  // The list exists by then: a refusal shows on the list's page, so sending the form again
  // cannot make a second list.
  const layout = form.layout === 'table' || form.layout === 'kanban' ? form.layout : null;
  const addProperties = tasks && properties.length ? properties : null;
  if (layout || addProperties) {
    try {
      await kit.call(user, 'update_list', { id: made.id, ...(layout ? { layout } : {}), ...(addProperties ? { addProperties } : {}) });
    } catch (err) {
      const e = refusal(err);
      ctx.params.id = made.id;
      return listPage(kit, ctx, user, { status: e.status, error: `The list was made, but not all of it: ${e.message}` });
    }
  }
  kit.redirect(ctx, `${LISTS_PATH}/${made.id}`);
}

async function quickAdd(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  try {
    const entry = await titleWithDue(kit, user, form.title ?? '', true);
    const made = await kit.call(user, 'create_items', { items: [entry] });
    const failed = made.failed?.[0];
    if (failed) return home(kit, ctx, user, { status: 400, error: failed.reason, form });
    const id = made.items[0]?.id;
    kit.redirect(ctx, id ? `${LISTS_PATH}?added=${id}` : LISTS_PATH);
  } catch (err) {
    const e = refusal(err);
    await home(kit, ctx, user, { status: e.status, error: e.message, form });
  }
}

function countText(list: List): string {
  return `${list.itemCount} ${list.role === 'tasks' ? 'open' : list.itemCount === 1 ? 'item' : 'items'}`;
}

function splitOptions(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    ),
  ];
}
