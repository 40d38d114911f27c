/**
 * One list's page and the writes on its items: the page in the view its layout names (or the
 * one asked for), keeping a view as the list's layout, adding an item (a date in the title of a
 * to-do item becomes its due date), setting one value (a cell, a board move, Complete) and
 * deleting an item. Every write is an operation called as the person (kit.call), so a refusal
 * is the sentence REST and MCP answer; htmx swaps an answered cell in place.
 * @see openapi/openapi.yaml update_list, create_items, update_items, delete_items
 */
import type { Context } from 'koa';
import type { OpInput } from '../core/context.js';
import type { ApiError } from '../core/errors.js';
import { timeZoneOf } from '../domain/accounts/accounts.js';
import { readDueFromTitle } from '../domain/items/enrich.js';
import { isUuid } from '../domain/ids.js';
import { localNow } from '../domain/time.js';
import { html, type Html } from './html.js';
import { noticeOf, refusal, type PageKit } from './page-kit.js';
import { safeNext } from './forms.js';
import type { WebUser } from './sessions.js';
import {
  boardView,
  canBoard,
  cellForm,
  isView,
  layoutView,
  LISTS_PATH,
  listView,
  quickAddForm,
  tableView,
  viewOf,
  type ItemRow,
  type List,
  type View,
} from './list-views.js';

export const NOTICES: Record<string, string> = {
  deleted: 'Moved to the trash. Restore it from the trash within its retention time.',
};

/** A title with everyday dates: on a to-do list, the date it names becomes the due date. */
export async function titleWithDue(kit: PageKit, user: WebUser, text: string, keepsDue: boolean): Promise<{ title: string; dueAt?: string }> {
  const title = text.trim();
  if (!keepsDue || title === '') return { title };
  const tz = await timeZoneOf(kit.deps.db, user.id);
  const due = readDueFromTitle(title, tz, kit.deps.services.now());
  if (!due) return { title };
  return { title: due.title, dueAt: due.hasDueTime ? due.dueAt.toISOString() : localNow(due.dueAt, tz).today };
}

export async function listOf(kit: PageKit, user: WebUser, id: string): Promise<List | null> {
  if (!isUuid(id)) return null;
  const { lists } = await kit.call(user, 'list_lists', {});
  return lists.find((l) => l.id === id) ?? null;
}

export async function showList(kit: PageKit, ctx: Context): Promise<void> {
  const user = await kit.signedIn(ctx);
  if (user) await listPage(kit, ctx, user);
}

export async function listPage(kit: PageKit, ctx: Context, user: WebUser, options: { status?: number; error?: string; title?: string } = {}): Promise<void> {
  const list = await listOf(kit, user, ctx.params.id!);
  if (!list) return notFound(kit, ctx, user);
  const view = viewOf(ctx.query.view, list);
  const tz = await timeZoneOf(kit.deps.db, user.id);
  const rendered =
    view === 'table'
      ? await tableView(kit, ctx, user, list, tz)
      : view === 'board'
        ? await boardView(kit, ctx, user, list, tz)
        : await listView(kit, ctx, user, list, tz);
  const body = html`<p class="muted"><a href="${LISTS_PATH}">All lists</a>${list.instructions ? html` · ${list.instructions}` : ''}</p>
${viewSwitch(kit, ctx, list, view)}
<section class="card" aria-labelledby="add-h"><h2 id="add-h" class="visually-hidden">Add an item</h2>${quickAddForm(kit, ctx, options.title ?? '', list.id, view)}</section>
${rendered}`;
  kit.show(ctx, user, `${list.icon ? `${list.icon} ` : ''}${list.name}`, body, {
    section: 'lists',
    wide: view !== 'list',
    ...(options.status ? { status: options.status } : {}),
    error: options.error ?? null,
    notice: noticeOf(NOTICES, ctx.query.done),
  });
}

function viewSwitch(kit: PageKit, ctx: Context, list: List, view: View): Html {
  const views: View[] = canBoard(list) ? ['list', 'table', 'board'] : ['list', 'table'];
  const links = views.map((v) => (v === view ? html`<strong aria-current="true">${v}</strong>` : html`<a href="${LISTS_PATH}/${list.id}?view=${v}">${v}</a>`));
  const saved = layoutView(list.layout);
  return html`<nav class="row" aria-label="Views"><span class="fit">Show as: ${links.map((l, i) => html`${i ? ' · ' : ''}${l}`)}</span>${
    view !== saved ? kit.button(ctx, `${LISTS_PATH}/${list.id}/layout`, `Always show as ${view}`, { kind: 'secondary small', fields: { layout: view } }) : ''
  }</nav>`;
}

export async function setLayout(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const layout = got.form.layout === 'board' ? 'kanban' : got.form.layout === 'table' ? 'table' : 'list';
  try {
    await kit.call(got.user, 'update_list', { id: ctx.params.id!, layout });
    kit.redirect(ctx, `${LISTS_PATH}/${ctx.params.id}`);
  } catch (err) {
    const e = refusal(err);
    await listPage(kit, ctx, got.user, { status: e.status, error: e.message });
  }
}

export async function addItem(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  const list = await listOf(kit, user, ctx.params.id!);
  if (!list) return notFound(kit, ctx, user);
  try {
    const entry = await titleWithDue(kit, user, form.title ?? '', list.dueDatePropertyId !== null);
    const made = await kit.call(user, 'create_items', { listId: list.id, items: [entry] });
    const failed = made.failed?.[0];
    if (failed) return listPage(kit, ctx, user, { status: 400, error: failed.reason, title: form.title ?? '' });
    kit.redirect(ctx, `${LISTS_PATH}/${list.id}${isView(form.view) ? `?view=${form.view}` : ''}`);
  } catch (err) {
    const e = refusal(err);
    await listPage(kit, ctx, user, { status: e.status, error: e.message, title: form.title ?? '' });
  }
}

/** Sets one value (a cell, a board move, Complete): update_items with that one property. */
export async function setValue(kit: PageKit, ctx: Context): Promise<void> {
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
  if (kit.fromHtmx(ctx) && form.cell) return answerCell(kit, ctx, user, itemId, property, form.back ?? '', failure?.message);
  if (failure) {
    ctx.params.id = await listIdOf(kit, user, itemId);
    if (!ctx.params.id) return notFound(kit, ctx, user);
    return listPage(kit, ctx, user, { status: failure.status, error: failure.message });
  }
  kit.redirect(ctx, form.back ?? LISTS_PATH);
}

async function answerCell(kit: PageKit, ctx: Context, user: WebUser, itemId: string, propertyId: string, back: string, error?: string): Promise<void> {
  const item = await kit.call(user, 'get_item', { id: itemId }).catch(() => null);
  const property = item?.properties.find((p) => p.id === propertyId);
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  if (!item || !property) {
    ctx.body = html`<p class="error" role="alert">${error ?? 'This item is gone.'}</p>`.value;
    return;
  }
  const row = { ...item, listId: item.listId ?? '' } as unknown as ItemRow;
  ctx.body = cellForm(kit, ctx, row, property, await timeZoneOf(kit.deps.db, user.id), back, error).value;
}

export async function deleteItem(kit: PageKit, ctx: Context): Promise<void> {
  const got = await kit.posted(ctx);
  if (!got) return;
  const { user, form } = got;
  try {
    const result = await kit.call(user, 'delete_items', { itemIds: [ctx.params.id!] });
    if (result.deleted === 0) return notFound(kit, ctx, user);
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

async function listIdOf(kit: PageKit, user: WebUser, itemId: string): Promise<string | undefined> {
  const item = await kit.call(user, 'get_item', { id: itemId }).catch(() => null);
  return item?.listId ?? undefined;
}

export function notFound(kit: PageKit, ctx: Context, user: WebUser): void {
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

function withDone(path: string, done: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}done=${done}`;
}
