/**
 * The person's lists: the home page (every list, Tasks first, quick add, a new list with its
 * properties) and one list in the view its layout names: a list, a table with typed columns
 * (sort, filter, a value edited in its cell) or a board grouped by status or a select
 * property. Every write is an operation called as the person (kit.call), so the page shows
 * the sentence REST and MCP would answer. With JavaScript, htmx sends a changed cell or a
 * moved card at once and swaps in the answer; without it, each form has its own button.
 * @see openapi/openapi.yaml list_lists, create_list, update_list, query_items, create_items, update_items, delete_items
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import type { OpInput, OpOutput } from '../core/context.js';
import type { ApiError } from '../core/errors.js';
import type { components } from '../generated/api.js';
import { timeZoneOf } from '../domain/accounts/accounts.js';
import { readDueFromTitle } from '../domain/items/enrich.js';
import { isUuid } from '../domain/ids.js';
import { localNow } from '../domain/time.js';
import { Html, html } from './html.js';
import { noticeOf, refusal, type PageKit } from './page-kit.js';
import { safeNext } from './forms.js';
import { formatDay, formatTime } from './format.js';
import { STATUS_TEXT } from './item-form.js';
import type { WebUser } from './sessions.js';

type List = components['schemas']['List'];
type Property = components['schemas']['Property'];
type ItemRow = components['schemas']['ItemRow'];
type View = 'list' | 'table' | 'board';

export const LISTS_PATH = '/lists';
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
const PAGE_ROWS = 200;

export function registerListPages(router: Router, kit: PageKit): void {
  const { db } = kit.deps;
  const now = () => kit.deps.services.now();

  router.get(LISTS_PATH, showHome);
  router.post(LISTS_PATH, createList);
  router.post('/quick-add', quickAdd);
  router.get(`${LISTS_PATH}/:id`, showList);
  router.post(`${LISTS_PATH}/:id/items`, addItem);
  router.post(`${LISTS_PATH}/:id/layout`, setLayout);
  router.post('/items/:id/value', setValue);
  router.post('/items/:id/delete', deleteItem);

  // ---- Home -----------------------------------------------------------------------------

  async function showHome(ctx: Context): Promise<void> {
    const user = await kit.signedIn(ctx);
    if (user) await home(ctx, user);
  }

  async function home(
    ctx: Context,
    user: WebUser,
    options: { status?: number; error?: string; notice?: string; form?: Record<string, string> } = {},
  ): Promise<void> {
    const { lists, tasksListId } = await kit.call(user, 'list_lists', {});
    const ordered = [...lists].sort((a, b) => Number(b.id === tasksListId) - Number(a.id === tasksListId));
    const form = options.form ?? {};
    const body = html`
<section class="card" aria-labelledby="quick-h">
<h2 id="quick-h">Quick add</h2>
${quickAddForm(ctx, form.title ?? '')}
</section>
<section aria-labelledby="lists-h">
<h2 id="lists-h">Your lists</h2>
<ul class="lists">${ordered.map(
      (list) =>
        html`<li><a href="${LISTS_PATH}/${list.id}"><strong>${list.icon ? `${list.icon} ` : ''}${list.name}</strong><br><span class="muted">${countText(list)} · ${list.role === 'tasks' ? 'tasks' : list.role === 'notes' ? 'notes' : `${list.properties.length} properties`}</span></a></li>`,
    )}</ul>
</section>
<section class="card" aria-labelledby="new-h">
<h2 id="new-h">New list</h2>
${newListForm(ctx, form)}
</section>`;
    kit.show(ctx, user, 'Lists', body, {
      section: 'lists',
      ...(options.status ? { status: options.status } : {}),
      error: options.error ?? null,
      notice: options.notice ?? noticeOf(NOTICES, ctx.query.done),
    });
  }

  function quickAddForm(ctx: Context, title: string, listId?: string, view?: View): Html {
    return html`<form method="post" action="${listId ? `${LISTS_PATH}/${listId}/items` : '/quick-add'}" class="row">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">${view ? html`<input type="hidden" name="view" value="${view}">` : ''}
<div><label for="quick-title">${listId ? 'Add an item' : 'Add a task'}</label>
<input id="quick-title" name="title" type="text" maxlength="2000" required value="${title}" placeholder="${listId ? 'Title' : 'Pay rent friday 9am'}" aria-describedby="quick-hint"></div>
<button type="submit">Add</button>
</form>
<p class="muted" id="quick-hint">${listId ? 'On a to-do list, a date or time in the title' : 'A date or time in it'} ("tomorrow", "friday 5pm", "dec 3") becomes the due date.</p>`;
  }

  function newListForm(ctx: Context, form: Record<string, string>): Html {
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

  async function createList(ctx: Context): Promise<void> {
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
      return home(ctx, user, { status: e.status, error: e.message, form });
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
        return listPage(ctx, user, { status: e.status, error: `The list was made, but not all of it: ${e.message}` });
      }
    }
    kit.redirect(ctx, `${LISTS_PATH}/${made.id}`);
  }

  async function quickAdd(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user, form } = got;
    try {
      const entry = await titleWithDue(user, form.title ?? '', true);
      const made = await kit.call(user, 'create_items', { items: [entry] });
      const failed = made.failed?.[0];
      if (failed) return home(ctx, user, { status: 400, error: failed.reason, form });
      kit.redirect(ctx, `${LISTS_PATH}?done=added`);
    } catch (err) {
      const e = refusal(err);
      await home(ctx, user, { status: e.status, error: e.message, form });
    }
  }

  /** A title with everyday dates: on a to-do list, the date it names becomes the due date. */
  async function titleWithDue(user: WebUser, text: string, keepsDue: boolean): Promise<{ title: string; dueAt?: string }> {
    const title = text.trim();
    if (!keepsDue || title === '') return { title };
    const tz = await timeZoneOf(db, user.id);
    const due = readDueFromTitle(title, tz, now());
    if (!due) return { title };
    return { title: due.title, dueAt: due.hasDueTime ? due.dueAt.toISOString() : localNow(due.dueAt, tz).today };
  }

  // ---- One list -------------------------------------------------------------------------

  async function listOf(user: WebUser, id: string): Promise<List | null> {
    if (!isUuid(id)) return null;
    const { lists } = await kit.call(user, 'list_lists', {});
    return lists.find((l) => l.id === id) ?? null;
  }

  async function showList(ctx: Context): Promise<void> {
    const user = await kit.signedIn(ctx);
    if (user) await listPage(ctx, user);
  }

  async function listPage(ctx: Context, user: WebUser, options: { status?: number; error?: string; title?: string } = {}): Promise<void> {
    const list = await listOf(user, ctx.params.id!);
    if (!list) return notFound(ctx, user);
    const view = viewOf(ctx.query.view, list);
    const tz = await timeZoneOf(db, user.id);
    const rendered =
      view === 'table' ? await tableView(ctx, user, list, tz) : view === 'board' ? await boardView(ctx, user, list, tz) : await listView(ctx, user, list, tz);
    const body = html`<p class="muted"><a href="${LISTS_PATH}">All lists</a>${list.instructions ? html` · ${list.instructions}` : ''}</p>
${viewSwitch(ctx, list, view)}
<section class="card" aria-labelledby="add-h"><h2 id="add-h" class="visually-hidden">Add an item</h2>${quickAddForm(ctx, options.title ?? '', list.id, view)}</section>
${rendered}`;
    kit.show(ctx, user, `${list.icon ? `${list.icon} ` : ''}${list.name}`, body, {
      section: 'lists',
      wide: view !== 'list',
      ...(options.status ? { status: options.status } : {}),
      error: options.error ?? null,
      notice: noticeOf(NOTICES, ctx.query.done),
    });
  }

  function viewSwitch(ctx: Context, list: List, view: View): Html {
    const views: View[] = canBoard(list) ? ['list', 'table', 'board'] : ['list', 'table'];
    const links = views.map((v) =>
      v === view ? html`<strong aria-current="true">${v}</strong>` : html`<a href="${LISTS_PATH}/${list.id}?view=${v}">${v}</a>`,
    );
    const saved = layoutView(list.layout);
    return html`<nav class="row" aria-label="Views"><span class="fit">Show as: ${links.map((l, i) => html`${i ? ' · ' : ''}${l}`)}</span>${
      view !== saved ? kit.button(ctx, `${LISTS_PATH}/${list.id}/layout`, `Always show as ${view}`, { kind: 'secondary small', fields: { layout: view } }) : ''
    }</nav>`;
  }

  async function setLayout(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    const layout = got.form.layout === 'board' ? 'kanban' : got.form.layout === 'table' ? 'table' : 'list';
    try {
      await kit.call(got.user, 'update_list', { id: ctx.params.id!, layout });
      kit.redirect(ctx, `${LISTS_PATH}/${ctx.params.id}`);
    } catch (err) {
      const e = refusal(err);
      await listPage(ctx, got.user, { status: e.status, error: e.message });
    }
  }

  /** The list view: one line per item, open ones first, with Complete on a to-do list; a page of PAGE_ROWS, then Next. */
  async function listView(ctx: Context, user: WebUser, list: List, tz: string): Promise<Html> {
    const completed = list.statusPropertyId !== null && ctx.query.status === 'completed';
    const cursor = typeof ctx.query.cursor === 'string' && ctx.query.cursor !== '' ? ctx.query.cursor : undefined;
    const read = (after?: string) =>
      kit.call(user, 'list_items', {
        listId: list.id,
        limit: PAGE_ROWS,
        ...(completed ? { taskStatus: ['completed' as const], sort: 'completed' as const } : {}),
        ...(after ? { cursor: after } : {}),
      });
    let problem: string | null = null;
    let page: OpOutput<'list_items'>;
    try {
      page = await read(cursor);
    } catch (err) {
      // A link's cursor that no longer reads (edited by hand, or from an older version): the first page, and why.
      if (cursor === undefined) throw err;
      problem = refusal(err).message;
      page = await read();
    }
    const { items } = page;
    const base = `${LISTS_PATH}/${list.id}?view=list`;
    const first = completed ? `${base}&status=completed` : base;
    const onLater = cursor !== undefined && problem === null;
    const other = list.statusPropertyId
      ? html`<p><a href="${completed ? base : `${base}&status=completed`}">${completed ? 'Show open tasks' : 'Show completed'}</a></p>`
      : '';
    const notice = problem ? html`<p class="error" role="alert">${problem} The first page is shown.</p>` : '';
    const paging = html`${
      page.hasMore && page.nextCursor ? html`<a href="${first}&cursor=${encodeURIComponent(page.nextCursor)}">Next ${PAGE_ROWS}</a>` : ''
    }${page.hasMore && onLater ? ' · ' : ''}${onLater ? html`<a href="${first}">Back to the first ${PAGE_ROWS}</a>` : ''}`;
    if (items.length === 0)
      return html`${notice}<p class="muted">${onLater ? 'No more items.' : completed ? 'Nothing completed yet.' : 'Nothing here yet.'}</p>${other}${
        onLater ? html`<p>${paging}</p>` : ''
      }`;
    const back = onLater ? `${first}&cursor=${encodeURIComponent(cursor)}` : first;
    return html`${notice}${other}<section class="card"><ul class="tasks">${items.map((item) => {
      const done = item.taskStatus === 'completed';
      const toggle = list.statusPropertyId
        ? kit.button(ctx, `/items/${item.id}/value`, done ? 'Reopen' : 'Complete', {
            kind: 'secondary small',
            fields: { property: 'status', value: done ? 'todo' : 'completed', back },
            title: `${done ? 'Reopen' : 'Complete'} ${item.title ?? 'item'}`,
          })
        : '';
      return html`<li>${toggle}<span class="what"><a href="/artifacts/${item.id}"${done ? new Html(' class="done"') : ''}>${item.title?.trim() || '(untitled)'}</a>${
        item.dueAt ? html` <span class="muted">due ${dueText(item, tz)}</span>` : ''
      }${item.labels?.length ? html` ${item.labels.map((l) => html`<span class="badge">${l}</span> `)}` : ''}${
        item.subtasks?.count ? html` <span class="muted">${item.subtasks.count - item.subtasks.open}/${item.subtasks.count} subtasks</span>` : ''
      }</span></li>`;
    })}</ul>${page.hasMore || onLater ? html`<nav class="pager" aria-label="Pages"><p>${paging}</p></nav>` : ''}</section>`;
  }

  /** The table: typed columns, sorted by a column's header, filtered by one property, each cell its own small form. */
  async function tableView(ctx: Context, user: WebUser, list: List, tz: string): Promise<Html> {
    const columns = list.properties;
    // Only the list's own columns: a link cannot make the page show a refusal of its own words.
    const sort = typeof ctx.query.sort === 'string' && (ctx.query.sort === 'title' || columns.some((p) => p.id === ctx.query.sort)) ? ctx.query.sort : null;
    const direction = ctx.query.dir === 'desc' ? 'desc' : 'asc';
    const filter = tableFilter(ctx, columns);
    const offset = pageOffset(ctx.query.offset);
    let result: OpOutput<'query_items'>;
    let problem: string | null = null;
    try {
      result = await kit.call(user, 'query_items', {
        listId: list.id,
        limit: PAGE_ROWS,
        ...(offset ? { offset } : {}),
        ...(sort ? { sort: { property: sort, direction } } : {}),
        ...(filter ? { where: [filter.clause] } : {}),
      });
    } catch (err) {
      problem = refusal(err).message;
      result = await kit.call(user, 'query_items', { listId: list.id, limit: PAGE_ROWS });
    }
    // The filter in every link (sorting and paging keep it); the sort in paging's; the page in a cell's way back.
    const base = `${LISTS_PATH}/${list.id}?view=table${filter ? `&where=${encodeURIComponent(filter.form.property)}&value=${encodeURIComponent(filter.form.value)}` : ''}`;
    const sorted = `${base}${sort ? `&sort=${encodeURIComponent(sort)}&dir=${direction}` : ''}`;
    const back = `${sorted}${result.offset ? `&offset=${result.offset}` : ''}`;
    const header = (id: string, label: string) => {
      const next = sort === id && direction === 'asc' ? 'desc' : 'asc';
      const state = sort === id ? (direction === 'asc' ? 'ascending' : 'descending') : 'none';
      return html`<th scope="col" aria-sort="${state}"><a href="${base}&sort=${encodeURIComponent(id)}&dir=${next}">${label}${sort === id ? (direction === 'asc' ? ' ▲' : ' ▼') : ''}</a></th>`;
    };
    const shown = result.items.length;
    const pager =
      result.offset > 0 || result.hasMore
        ? html`<nav class="pager" aria-label="Pages"><p><span class="muted">${result.offset + 1}–${result.offset + shown} of ${result.count}</span>${
            result.offset > 0
              ? html` · <a href="${sorted}${result.offset > PAGE_ROWS ? `&offset=${result.offset - PAGE_ROWS}` : ''}">Previous ${PAGE_ROWS}</a>`
              : ''
          }${result.hasMore ? html` · <a href="${sorted}&offset=${result.offset + shown}">Next ${PAGE_ROWS}</a>` : ''}</p></nav>`
        : '';
    return html`${filterForm(list, columns, filter?.form)}
${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
<section class="card table-wrap"><table class="items">
<caption class="visually-hidden">${list.name}: ${result.count} items</caption>
<thead><tr>${header('title', list.titleLabel ?? 'Title')}${columns.map((p) => header(p.id, p.name))}<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${result.items.map(
      (item) =>
        html`<tr><th scope="row"><a href="/artifacts/${item.id}">${item.title?.trim() || '(untitled)'}</a></th>${columns.map(
          (p) => html`<td>${cellForm(ctx, item, p, tz, back)}</td>`,
        )}<td>${kit.button(ctx, `/items/${item.id}/delete`, 'Delete', { kind: 'danger small', fields: { back }, title: `Delete ${item.title ?? 'item'}` })}</td></tr>`,
    )}</tbody></table>
${result.items.length === 0 ? html`<p class="muted">${result.offset > 0 ? 'No more items.' : `No items${filter ? ' match the filter' : ''}.`}</p>` : ''}
${pager}
</section>`;
  }

  /** One cell: an input by the property's type that posts itself on change (htmx), or with its Save button. */
  function cellForm(ctx: Context, item: ItemRow, property: Property, tz: string, back: string, error?: string): Html {
    const label = `${property.name} of ${item.title?.trim() || 'this item'}`;
    const action = `/items/${item.id}/value`;
    return html`<form method="post" action="${action}" class="cell" hx-post="${action}" hx-trigger="change" hx-swap="outerHTML">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}"><input type="hidden" name="property" value="${property.id}"><input type="hidden" name="back" value="${back}"><input type="hidden" name="cell" value="1">
${valueInput(item, property, tz, label)}<button type="submit" class="small no-js">Save</button>${error ? html`<span class="error" role="alert">${error}</span>` : ''}
</form>`;
  }

  async function boardView(ctx: Context, user: WebUser, list: List, tz: string): Promise<Html> {
    const group = boardGroup(ctx, list);
    if (!group) return html`<p class="muted">A board groups by status or by a choice property; this list has neither.</p>`;
    const result = await kit.call(user, 'query_items', { listId: list.id, limit: PAGE_ROWS });
    const more = result.hasMore
      ? html`<p class="muted">The board holds the first ${PAGE_ROWS} of ${result.count} items; <a href="${LISTS_PATH}/${list.id}?view=table">the table</a> pages through them all.</p>`
      : '';
    const columns: Array<{ value: string; label: string }> =
      group.id === 'status'
        ? Object.entries(STATUS_TEXT).map(([value, label]) => ({ value, label }))
        : [...(group.options ?? []).map((o) => ({ value: o.id, label: o.label })), { value: '', label: 'No value' }];
    const columnOf = (item: ItemRow) => (group.id === 'status' ? (item.taskStatus ?? 'todo') : String(item.values[group.id] ?? ''));
    const back = `${LISTS_PATH}/${list.id}?view=board${group.id === 'status' ? '' : `&groupBy=${group.id}`}`;
    const choices = canGroupBy(list);
    return html`${
      choices.length > 1
        ? html`<form method="get" action="${LISTS_PATH}/${list.id}" class="row"><input type="hidden" name="view" value="board"><div><label for="group-by">Group by</label><select id="group-by" name="groupBy">${choices.map(
            (p) => html`<option value="${p.id}"${p.id === group.id ? new Html(' selected') : ''}>${p.name}</option>`,
          )}</select></div><button type="submit" class="secondary">Group</button></form>`
        : ''
    }
<div class="board">${columns.map((column) => {
      const cards = result.items.filter((item) => columnOf(item) === column.value);
      return html`<section class="column" data-value="${column.value}" aria-labelledby="col-${column.value || 'none'}"><h2 id="col-${column.value || 'none'}">${column.label} <span class="muted">${cards.length}</span></h2><ol>${cards.map(
        (item) =>
          html`<li draggable="true"><a href="/artifacts/${item.id}">${item.title?.trim() || '(untitled)'}</a>${
            item.dueAt ? html`<br><span class="muted">due ${dueText(item, tz)}</span>` : ''
          }${moveForm(ctx, item, group, columns, column.value, back)}</li>`,
      )}</ol></section>`;
    })}</div>${more}`;
  }

  function moveForm(ctx: Context, item: ItemRow, group: Property, columns: Array<{ value: string; label: string }>, current: string, back: string): Html {
    const action = `/items/${item.id}/value`;
    const id = `move-${item.id}`;
    return html`<form method="post" action="${action}" class="cell" hx-post="${action}" hx-trigger="change" hx-target="closest .board" hx-select=".board" hx-swap="outerHTML">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}"><input type="hidden" name="property" value="${group.id}"><input type="hidden" name="back" value="${back}">
<label for="${id}" class="visually-hidden">Move ${item.title ?? 'item'} to</label><select id="${id}" name="value">${columns.map(
      (c) => html`<option value="${c.value}"${c.value === current ? new Html(' selected') : ''}>${c.label}</option>`,
    )}</select><button type="submit" class="small no-js">Move</button></form>`;
  }

  // ---- Writes on one item ------------------------------------------------------------------

  async function addItem(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user, form } = got;
    const list = await listOf(user, ctx.params.id!);
    if (!list) return notFound(ctx, user);
    try {
      const entry = await titleWithDue(user, form.title ?? '', list.dueDatePropertyId !== null);
      const made = await kit.call(user, 'create_items', { listId: list.id, items: [entry] });
      const failed = made.failed?.[0];
      if (failed) return listPage(ctx, user, { status: 400, error: failed.reason, title: form.title ?? '' });
      kit.redirect(ctx, `${LISTS_PATH}/${list.id}${isView(form.view) ? `?view=${form.view}` : ''}`);
    } catch (err) {
      const e = refusal(err);
      await listPage(ctx, user, { status: e.status, error: e.message, title: form.title ?? '' });
    }
  }

  /** Sets one value (a cell, a board move, Complete): update_items with that one property. */
  async function setValue(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user, form, all } = got;
    const itemId = ctx.params.id!;
    const property = form.property ?? '';
    const value = submittedValue(form, all);
    let failure: ApiError | undefined;
    try {
      await kit.call(user, 'update_items', updateOf(itemId, property, value));
    } catch (err) {
      failure = refusal(err);
    }
    // htmx swaps the cell in place; the board and a plain form go back to the page.
    if (kit.fromHtmx(ctx) && form.cell) return answerCell(ctx, user, itemId, property, form.back ?? '', failure?.message);
    if (failure) {
      ctx.params.id = await listIdOf(user, itemId);
      if (!ctx.params.id) return notFound(ctx, user);
      return listPage(ctx, user, { status: failure.status, error: failure.message });
    }
    kit.redirect(ctx, form.back ?? LISTS_PATH);
  }

  async function answerCell(ctx: Context, user: WebUser, itemId: string, propertyId: string, back: string, error?: string): Promise<void> {
    const item = await kit.call(user, 'get_item', { id: itemId }).catch(() => null);
    const property = item?.properties.find((p) => p.id === propertyId);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-store');
    if (!item || !property) {
      ctx.body = html`<p class="error" role="alert">${error ?? 'This item is gone.'}</p>`.value;
      return;
    }
    const row = { ...item, listId: item.listId ?? '' } as unknown as ItemRow;
    ctx.body = cellForm(ctx, row, property, await timeZoneOf(db, user.id), back, error).value;
  }

  async function deleteItem(ctx: Context): Promise<void> {
    const got = await kit.posted(ctx);
    if (!got) return;
    const { user, form } = got;
    try {
      const result = await kit.call(user, 'delete_items', { itemIds: [ctx.params.id!] });
      if (result.deleted === 0) return notFound(ctx, user);
      kit.redirect(ctx, withDone(form.back ?? LISTS_PATH, 'deleted'));
    } catch (err) {
      const e = refusal(err);
      kit.show(ctx, user, 'Not deleted', html`<p><a href="${safeNext(form.back, LISTS_PATH)}">Back</a></p>`, {
        status: e.status,
        error: e.message,
        section: 'lists',
      });
    }
  }

  async function listIdOf(user: WebUser, itemId: string): Promise<string | undefined> {
    const item = await kit.call(user, 'get_item', { id: itemId }).catch(() => null);
    return item?.listId ?? undefined;
  }

  function notFound(ctx: Context, user: WebUser): void {
    kit.show(
      ctx,
      user,
      'No such list',
      html`<div class="card"><p>This list is not in your workspace: it may have been deleted.</p><p><a href="${LISTS_PATH}">Your lists</a> · <a href="/trash">Trash</a></p></div>`,
      {
        status: 404,
        section: 'lists',
      },
    );
  }
}

// ---- Rendering helpers (no state) -----------------------------------------------------------

function countText(list: List): string {
  return `${list.itemCount} ${list.role === 'tasks' ? 'open' : list.itemCount === 1 ? 'item' : 'items'}`;
}

function layoutView(layout: List['layout']): View {
  return layout === 'kanban' ? 'board' : layout;
}

function canGroupBy(list: List): Property[] {
  return list.properties.filter((p) => p.type === 'status' || p.type === 'select');
}

function canBoard(list: List): boolean {
  return canGroupBy(list).length > 0;
}

function isView(asked: unknown): asked is View {
  return asked === 'list' || asked === 'table' || asked === 'board';
}

function viewOf(asked: unknown, list: List): View {
  const view = isView(asked) ? asked : layoutView(list.layout);
  return view === 'board' && !canBoard(list) ? 'table' : view;
}

function boardGroup(ctx: Context, list: List): Property | null {
  const choices = canGroupBy(list);
  return choices.find((p) => p.id === ctx.query.groupBy) ?? choices[0] ?? null;
}

/** A table page's first row from its address: a whole number from 0, anything else the first page. */
function pageOffset(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d{1,7}$/.test(raw) ? Number(raw) : 0;
  return Math.min(n, 1_000_000);
}

/** The one `where` clause of the table's filter: `contains` for text, equality otherwise. */
function tableFilter(ctx: Context, columns: Property[]): { clause: components['schemas']['WhereClause']; form: { property: string; value: string } } | null {
  const property = typeof ctx.query.where === 'string' ? ctx.query.where : '';
  const value = typeof ctx.query.value === 'string' ? ctx.query.value : '';
  const column = columns.find((p) => p.id === property) ?? (property === 'title' ? { id: 'title', type: 'text' as const, name: 'Title' } : null);
  if (!column) return null;
  if (value === '') return { clause: { property: column.id, op: 'isEmpty' }, form: { property, value } };
  const op = column.type === 'text' || column.type === 'url' || column.type === 'email' || column.type === 'multiSelect' ? 'contains' : 'eq';
  const typed = column.type === 'number' ? Number(value) : column.type === 'checkbox' ? value === 'true' || value === 'yes' : value;
  return { clause: { property: column.id, op, value: typed }, form: { property, value } };
}

function filterForm(list: List, columns: Property[], current?: { property: string; value: string }): Html {
  const choices = [{ id: 'title', name: list.titleLabel ?? 'Title' }, ...columns];
  return html`<form method="get" action="${LISTS_PATH}/${list.id}" class="row card" role="search" aria-label="Filter the table">
<input type="hidden" name="view" value="table">
<div><label for="filter-property">Filter by</label><select id="filter-property" name="where">${choices.map(
    (p) => html`<option value="${p.id}"${current?.property === p.id ? new Html(' selected') : ''}>${p.name}</option>`,
  )}</select></div>
<div><label for="filter-value">Value</label><input id="filter-value" name="value" type="text" value="${current?.value ?? ''}" placeholder="empty finds items without one"></div>
<button type="submit" class="secondary">Filter</button>${current ? html`<a class="button secondary fit" href="${LISTS_PATH}/${list.id}?view=table">Clear</a>` : ''}
</form>`;
}

/** The input for one value, by type; select values are option ids, as the API stores them. */
function valueInput(item: ItemRow, p: Property, tz: string, label: string): Html {
  const raw = p.id === 'status' ? item.taskStatus : p.id === 'dueDate' ? item.dueAt : item.values[p.id];
  const id = `v-${item.id}-${p.id}`;
  const labelled = html`<label for="${id}" class="visually-hidden">${label}</label>`;
  switch (p.type) {
    case 'status':
      return html`${labelled}<select id="${id}" name="value">${Object.entries(STATUS_TEXT).map(
        ([value, text]) => html`<option value="${value}"${(raw ?? 'todo') === value ? new Html(' selected') : ''}>${text}</option>`,
      )}</select>`;
    case 'select':
      return html`${labelled}<select id="${id}" name="value"><option value="">—</option>${(p.options ?? []).map(
        (o) => html`<option value="${o.id}"${raw === o.id ? new Html(' selected') : ''}>${o.label}</option>`,
      )}</select>`;
    case 'multiSelect': {
      const chosen = new Set(Array.isArray(raw) ? raw.map(String) : []);
      return html`${labelled}<select id="${id}" name="value" multiple size="${Math.min(4, Math.max(2, p.options?.length ?? 2))}">${(p.options ?? []).map(
        (o) => html`<option value="${o.id}"${chosen.has(o.id) ? new Html(' selected') : ''}>${o.label}</option>`,
      )}</select><input type="hidden" name="multi" value="1">`;
    }
    case 'checkbox':
      return html`${labelled}<input id="${id}" type="checkbox" name="value" value="true"${raw === true ? new Html(' checked') : ''}><input type="hidden" name="checkbox" value="1">`;
    case 'number':
      return html`${labelled}<input id="${id}" type="number" step="any" name="value" value="${raw === null || raw === undefined ? '' : String(raw)}">`;
    case 'date':
      return p.id === 'dueDate'
        ? html`${labelled}<input id="${id}" type="text" name="value" value="${item.dueAt ? dueText(item, tz) : ''}" placeholder="e.g. friday 5pm">`
        : html`${labelled}<input id="${id}" type="date" name="value" value="${typeof raw === 'string' ? raw.slice(0, 10) : ''}">`;
    default:
      return html`${labelled}<input id="${id}" type="${p.type === 'url' ? 'url' : p.type === 'email' ? 'email' : 'text'}" name="value" value="${raw === null || raw === undefined ? '' : String(raw)}">`;
  }
}

/**
 * update_items for one value: status and the due date as the call's `taskStatus` and `dueAt`
 * (the due date read in the person's time zone, words too), any other property as a value.
 */
function updateOf(itemId: string, property: string, value: ReturnType<typeof submittedValue>): OpInput<'update_items'> {
  if (property === 'status') return { items: [{ itemId }], taskStatus: String(value) as NonNullable<OpInput<'update_items'>['taskStatus']> };
  if (property === 'dueDate') return { items: [{ itemId }], dueAt: String(value).trim() || 'none' };
  return { items: [{ itemId, values: { [property]: value } }] };
}

/** The value a cell's form sent, as the API takes it: "" clears, a check box is a boolean, a multiSelect a list. */
function submittedValue(form: Record<string, string>, all: URLSearchParams): string | number | boolean | string[] {
  if (form.checkbox) return all.getAll('value').includes('true');
  if (form.multi) return all.getAll('value').filter((v) => v !== '');
  return form.value ?? '';
}

function dueText(item: Pick<ItemRow, 'dueAt' | 'hasDueTime'>, tz: string): string {
  if (!item.dueAt) return '';
  return item.hasDueTime ? formatTime(new Date(item.dueAt), tz) : formatDay(new Date(item.dueAt), tz);
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

function withDone(path: string, done: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}done=${done}`;
}

const NOTICES: Record<string, string> = {
  added: 'Added.',
  deleted: 'Moved to the trash. Restore it from the trash within its retention time.',
};
