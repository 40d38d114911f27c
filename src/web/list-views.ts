/**
 * One list's views, rendered: a list (open items first, Complete on a to-do list), a table
 * with typed columns (sort, filter, each cell its own small form) and a board grouped by
 * status or a select property; the quick-add form the home page and a list share. Reads are
 * operations called as the person (kit.call); the writes these forms post are in list-page.ts.
 * @see openapi/openapi.yaml list_items, query_items
 */
import type { Context } from 'koa';
import type { OpOutput } from '../core/context.js';
import type { components } from '../generated/api.js';
import { Html, html } from './html.js';
import { refusal, type PageKit } from './page-kit.js';
import { formatDay, formatTime } from './format.js';
import { STATUS_TEXT } from './item-form.js';
import type { WebUser } from './sessions.js';

export type List = components['schemas']['List'];
export type Property = components['schemas']['Property'];
export type ItemRow = components['schemas']['ItemRow'];
export type View = 'list' | 'table' | 'board';

export const LISTS_PATH = '/lists';
export const PAGE_ROWS = 200;

export function quickAddForm(kit: PageKit, ctx: Context, title: string, listId?: string, view?: View): Html {
  return html`<form method="post" action="${listId ? `${LISTS_PATH}/${listId}/items` : '/quick-add'}" class="row">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}">${view ? html`<input type="hidden" name="view" value="${view}">` : ''}
<div><label for="quick-title">${listId ? 'Add an item' : 'Add a task'}</label>
<input id="quick-title" name="title" type="text" maxlength="2000" required value="${title}" placeholder="${listId ? 'Title' : 'Pay rent friday 9am'}" aria-describedby="quick-hint"></div>
<button type="submit">Add</button>
</form>
<p class="muted" id="quick-hint">${listId ? 'On a to-do list, a date or time in the title' : 'A date or time in it'} ("tomorrow", "friday 5pm", "dec 3") becomes the due date.</p>`;
}

/** The list view: one line per item, open ones first, with Complete on a to-do list; a page of PAGE_ROWS, then Next. */
export async function listView(kit: PageKit, ctx: Context, user: WebUser, list: List, tz: string): Promise<Html> {
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
export async function tableView(kit: PageKit, ctx: Context, user: WebUser, list: List, tz: string): Promise<Html> {
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
        (p) => html`<td>${cellForm(kit, ctx, item, p, tz, back)}</td>`,
      )}<td>${kit.button(ctx, `/items/${item.id}/delete`, 'Delete', { kind: 'danger small', fields: { back }, title: `Delete ${item.title ?? 'item'}` })}</td></tr>`,
  )}</tbody></table>
${result.items.length === 0 ? html`<p class="muted">${result.offset > 0 ? 'No more items.' : `No items${filter ? ' match the filter' : ''}.`}</p>` : ''}
${pager}
</section>`;
}

/** One cell: an input by the property's type that posts itself on change (htmx), or with its Save button. */
export function cellForm(kit: PageKit, ctx: Context, item: ItemRow, property: Property, tz: string, back: string, error?: string): Html {
  const label = `${property.name} of ${item.title?.trim() || 'this item'}`;
  const action = `/items/${item.id}/value`;
  return html`<form method="post" action="${action}" class="cell" hx-post="${action}" hx-trigger="change" hx-swap="outerHTML">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}"><input type="hidden" name="property" value="${property.id}"><input type="hidden" name="back" value="${back}"><input type="hidden" name="cell" value="1">
${valueInput(item, property, tz, label)}<button type="submit" class="small no-js">Save</button>${error ? html`<span class="error" role="alert">${error}</span>` : ''}
</form>`;
}

export async function boardView(kit: PageKit, ctx: Context, user: WebUser, list: List, tz: string): Promise<Html> {
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
        }${moveForm(kit, ctx, item, group, columns, column.value, back)}</li>`,
    )}</ol></section>`;
  })}</div>${more}`;
}

function moveForm(
  kit: PageKit,
  ctx: Context,
  item: ItemRow,
  group: Property,
  columns: Array<{ value: string; label: string }>,
  current: string,
  back: string,
): Html {
  const action = `/items/${item.id}/value`;
  const id = `move-${item.id}`;
  return html`<form method="post" action="${action}" class="cell" hx-post="${action}" hx-trigger="change" hx-target="closest .board" hx-select=".board" hx-swap="outerHTML">
<input type="hidden" name="csrf" value="${kit.csrf(ctx)}"><input type="hidden" name="property" value="${group.id}"><input type="hidden" name="back" value="${back}">
<label for="${id}" class="visually-hidden">Move ${item.title ?? 'item'} to</label><select id="${id}" name="value">${columns.map(
    (c) => html`<option value="${c.value}"${c.value === current ? new Html(' selected') : ''}>${c.label}</option>`,
  )}</select><button type="submit" class="small no-js">Move</button></form>`;
}

export function layoutView(layout: List['layout']): View {
  return layout === 'kanban' ? 'board' : layout;
}

function canGroupBy(list: List): Property[] {
  return list.properties.filter((p) => p.type === 'status' || p.type === 'select');
}

export function canBoard(list: List): boolean {
  return canGroupBy(list).length > 0;
}

export function isView(asked: unknown): asked is View {
  return asked === 'list' || asked === 'table' || asked === 'board';
}

export function viewOf(asked: unknown, list: List): View {
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

export function dueText(item: Pick<ItemRow, 'dueAt' | 'hasDueTime'>, tz: string): string {
  if (!item.dueAt) return '';
  return item.hasDueTime ? formatTime(new Date(item.dueAt), tz) : formatDay(new Date(item.dueAt), tz);
}
