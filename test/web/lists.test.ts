/**
 * The lists pages and the trash over plain HTTP with a session cookie: the home page, quick
 * add with everyday dates, a new list with properties, the list, table and board views, a
 * value edited in its cell (as a plain form and as htmx sends it), a refusal in the words
 * REST uses, delete and restore. (test/web/walk.test.ts walks the same in Chromium.)
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestServer, type TestAccount } from '../support/server.js';
import { HttpBrowser, formValue, signInOverHttp } from '../support/oauth.js';
import { create_items } from '../../src/operations/create_items.js';
import { get_item } from '../../src/operations/get_item.js';
import { list_lists } from '../../src/operations/list_lists.js';
import { localNow } from '../../src/domain/time.js';
import { formatTime } from '../../src/web/format.js';

const PASSWORD = 'correct horse battery staple';

function signedIn(server: TestServer, account: TestAccount): Promise<HttpBrowser> {
  return signInOverHttp(server.baseUrl, account.email, PASSWORD, '/lists');
}

describe('the lists pages', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  let web: HttpBrowser;
  let csrf: string;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
    web = await signedIn(server, ada);
    csrf = formValue(await (await web.request('/lists')).text(), 'csrf');
  });
  const ctx = () => server.context(ada);
  const post = (path: string, fields: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}) =>
    web.request(path, { form: fields instanceof URLSearchParams ? new URLSearchParams([['csrf', csrf], ...fields]) : { csrf, ...fields }, headers });
  const page = async (path: string) => {
    const res = await web.request(path);
    expect(res.status).toBe(200);
    return res.text();
  };

  /** Makes the Reading list (a table with four typed properties) through the page; answers it as list_lists shows it. */
  async function readingList() {
    const res = await post('/lists', {
      name: `Reading ${Math.random().toString(36).slice(2, 7)}`,
      kind: 'other',
      layout: 'table',
      'p1-name': 'Pages',
      'p1-type': 'number',
      'p2-name': 'Shelf',
      'p2-type': 'select',
      'p2-options': 'Sci-fi, Classics',
      'p3-name': 'Read',
      'p3-type': 'checkbox',
      'p4-name': 'Moods',
      'p4-type': 'multiSelect',
      'p4-options': 'calm, dark, funny',
    });
    expect(res.status).toBe(303);
    const id = res.headers.get('location')!.split('/').pop()!;
    const list = (await list_lists(ctx(), {})).lists.find((l) => l.id === id)!;
    const prop = (name: string) => list.properties.find((p) => p.name === name)!;
    const option = (property: string, label: string) => prop(property).options!.find((o) => o.label === label)!.id;
    return { list, prop, option };
  }

  it('sends a signed-out visitor to sign in, and the front door to the lists', async () => {
    const res = await new HttpBrowser(server.baseUrl).request('/lists');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/signin?next=%2Flists');
    expect((await new HttpBrowser(server.baseUrl).request('/')).headers.get('location')).toBe('/lists');
    // Signing in with no page to return to lands on the lists.
    expect(formValue(await (await new HttpBrowser(server.baseUrl).request('/signin')).text(), 'next')).toBe('/lists');
  });

  it('shows every list with Tasks first, and quick add reads the due date out of the title', async () => {
    const home = await page('/lists');
    expect(home.indexOf('Tasks')).toBeLessThan(home.indexOf('Notes'));
    expect(home).toContain('<h1>Lists</h1>');
    const res = await post('/quick-add', { title: 'Pay rent tomorrow 9am' });
    expect(res.status).toBe(303);
    const tasks = (await list_lists(ctx(), {})).tasksListId!;
    const item = (await server.db('items').where({ list_id: tasks, title: 'Pay rent' }).first()) as { due_at: Date; has_due_time: boolean };
    expect(item.has_due_time).toBe(true);
    // 9am tomorrow in the account's time zone (test accounts live in Europe/London).
    const tomorrow = localNow(new Date(Date.now() + 86400_000), 'Europe/London').today;
    expect(localNow(item.due_at, 'Europe/London')).toEqual({ today: tomorrow, localTime: '09:00' });
    // The page it lands on names the task, links to it and says when it is due, in the person's time zone.
    const { id } = (await server.db('items').where({ list_id: tasks, title: 'Pay rent' }).first('id')) as { id: string };
    expect(res.headers.get('location')).toBe(`/lists?added=${id}`);
    const due = formatTime(item.due_at, 'Europe/London');
    expect(await page(res.headers.get('location')!)).toContain(
      `<p class="notice" role="status">Added <a href="/artifacts/${id}">Pay rent</a> to Tasks, due ${due}.</p>`,
    );
    // Another person's item, or no item, names nothing.
    const bea = await server.account('Bea', PASSWORD);
    const theirs = (await create_items(server.context(bea), { items: [{ title: 'Bea’s secret' }] })).items[0]!.id;
    for (const added of [theirs, '00000000-0000-4000-8000-000000000000', 'nonsense'])
      expect(await page(`/lists?added=${added}`)).not.toContain('role="status"');
  });

  it('creates a list with typed properties and its layout, and refuses a bad one in the words of the API', async () => {
    const { list } = await readingList();
    expect(list.layout).toBe('table');
    expect(list.properties.map((p) => [p.name, p.type])).toEqual([
      ['Pages', 'number'],
      ['Shelf', 'select'],
      ['Read', 'checkbox'],
      ['Moods', 'multiSelect'],
    ]);
    // A to-do list keeps the properties typed beside its status and due date.
    const todo = await post('/lists', {
      name: 'Packing',
      kind: 'tasks',
      layout: 'kanban',
      'p1-name': 'Bag',
      'p1-type': 'select',
      'p1-options': 'Carry-on, Hold',
    });
    const packing = (await list_lists(ctx(), {})).lists.find((l) => l.id === todo.headers.get('location')!.split('/').pop())!;
    expect([packing.layout, packing.role, packing.properties.map((p) => p.name)]).toEqual(['kanban', 'tasks', ['Status', 'Due date', 'Bag']]);
    const refused = await post('/lists', { name: '', kind: 'other' });
    expect(refused.status).toBe(400);
    const rest = await ada.sdk.POST('/lists', { body: { name: '' } });
    expect(rest.response.status).toBe(400);
    expect(await refused.text()).toContain(escapeHtml(rest.error!.error));
  });

  it('edits each type of value in its table cell, as a plain form and as htmx sends it', async () => {
    const { list, prop, option } = await readingList();
    const dune = (await create_items(ctx(), { listId: list.id, items: [{ title: 'Dune' }] })).items[0]!.id;
    const table = await page(`/lists/${list.id}`);
    expect(table).toContain('<table class="items">');
    expect(table).toContain(`aria-label="Delete Dune"`);
    const back = `/lists/${list.id}?view=table`;
    const set = (property: string, fields: Record<string, string> | URLSearchParams) =>
      post(
        `/items/${dune}/value`,
        fields instanceof URLSearchParams ? new URLSearchParams([['property', property], ['back', back], ...fields]) : { property, back, ...fields },
      );
    expect((await set(prop('Pages').id, { value: '412' })).status).toBe(303);
    expect((await set(prop('Shelf').id, { value: option('Shelf', 'Sci-fi') })).status).toBe(303);
    expect((await set(prop('Read').id, { checkbox: '1', value: 'true' })).status).toBe(303);
    const moods = new URLSearchParams([
      ['multi', '1'],
      ['value', option('Moods', 'calm')],
      ['value', option('Moods', 'dark')],
    ]);
    expect((await set(prop('Moods').id, moods)).status).toBe(303);
    let values = (await get_item(ctx(), { id: dune })).values;
    expect(values).toEqual({
      [prop('Pages').id]: 412,
      [prop('Shelf').id]: option('Shelf', 'Sci-fi'),
      [prop('Read').id]: true,
      [prop('Moods').id]: [option('Moods', 'calm'), option('Moods', 'dark')],
    });
    // An unchecked box sends only its marker: the value becomes false.
    const htmx = await post(`/items/${dune}/value`, { property: prop('Read').id, back, checkbox: '1', cell: '1' }, { 'HX-Request': 'true' });
    expect(htmx.status).toBe(200);
    const fragment = await htmx.text();
    expect(fragment).toMatch(/^<form method="post" action="\/items\/[^"]+\/value" class="cell"/);
    expect(fragment).not.toContain('checked');
    values = (await get_item(ctx(), { id: dune })).values;
    expect(values[prop('Read').id]).toBe(false);
  });

  it('shows a refused value with the sentence REST answers, and writes nothing', async () => {
    const { list, prop } = await readingList();
    const emma = (await create_items(ctx(), { listId: list.id, items: [{ title: 'Emma', values: { Pages: 474 } }] })).items[0]!.id;
    const res = await post(`/items/${emma}/value`, { property: prop('Pages').id, value: 'many', back: `/lists/${list.id}` });
    const rest = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: emma, values: { [prop('Pages').id]: 'many' } }] } });
    expect(rest.response.status).toBe(409);
    expect(res.status).toBe(409);
    const sentence = rest.error!.error;
    expect(await res.text()).toContain(escapeHtml(sentence));
    const htmx = await post(
      `/items/${emma}/value`,
      { property: prop('Pages').id, value: 'many', back: `/lists/${list.id}`, cell: '1' },
      { 'HX-Request': 'true' },
    );
    expect(await htmx.text()).toContain(escapeHtml(sentence));
    expect((await get_item(ctx(), { id: emma })).values[prop('Pages').id]).toBe(474);
  });

  it("reads a due date typed in a table cell in the person's time zone, words too", async () => {
    const bea = await server.account('Bea', PASSWORD);
    await server.db('users').where({ id: bea.userId }).update({ timezone: 'America/Los_Angeles' });
    const browser = await signInOverHttp(server.baseUrl, bea.email, PASSWORD);
    const token = formValue(await (await browser.request('/lists')).text(), 'csrf');
    const tasks = (await list_lists(server.context(bea), {})).tasksListId!;
    const id = (await create_items(server.context(bea), { items: [{ title: 'Pay the rent' }] })).items[0]!.id;
    const set = (value: string) =>
      browser.request(`/items/${id}/value`, { form: { csrf: token, property: 'dueDate', value, back: `/lists/${tasks}?view=table` } });
    expect((await set('2026-12-24')).status).toBe(303);
    let item = await get_item(server.context(bea), { id });
    expect([localNow(new Date(item.dueAt!), 'America/Los_Angeles').today, item.hasDueTime]).toEqual(['2026-12-24', false]);
    // As the cell shows a due time, and sends it back unchanged.
    expect(await (await browser.request(`/lists/${tasks}?view=table`)).text()).toContain('value="24 Dec 2026"');
    expect((await set('24 Dec 2026, 17:00')).status).toBe(303);
    item = await get_item(server.context(bea), { id });
    expect(localNow(new Date(item.dueAt!), 'America/Los_Angeles')).toEqual({ today: '2026-12-24', localTime: '17:00' });
    expect((await set('friday 5pm')).status).toBe(303);
    item = await get_item(server.context(bea), { id });
    expect(localNow(new Date(item.dueAt!), 'America/Los_Angeles').localTime).toBe('17:00');
    expect((await set('')).status).toBe(303);
    expect((await get_item(server.context(bea), { id })).dueAt).toBeNull();
  });

  it('keeps the view an item was added in, and shows no notice a link names that is not its own', async () => {
    const { list } = await readingList();
    const res = await post(`/lists/${list.id}/items`, { title: 'Persuasion', view: 'board' });
    expect(res.headers.get('location')).toBe(`/lists/${list.id}?view=board`);
    for (const code of ['constructor', '__proto__', 'toString']) expect(await page(`/lists?done=${code}`)).not.toContain('role="status"');
    expect(await page('/lists?done=deleted')).toContain('<p class="notice" role="status">Moved to the trash.');
  });

  it('sorts the table by a column and filters it by a value', async () => {
    const { list, prop, option } = await readingList();
    await create_items(ctx(), {
      listId: list.id,
      items: [
        { title: 'Heat', values: { Pages: 300, Shelf: 'Sci-fi' } },
        { title: 'Lolita', values: { Pages: 336, Shelf: 'Classics' } },
        { title: 'Dune', values: { Pages: 412, Shelf: 'Sci-fi' } },
      ],
    });
    const rows = (html: string) => [...html.matchAll(/<th scope="row"><a href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
    expect(rows(await page(`/lists/${list.id}?view=table&sort=${prop('Pages').id}&dir=desc`))).toEqual(['Dune', 'Lolita', 'Heat']);
    expect(rows(await page(`/lists/${list.id}?view=table&sort=title&dir=asc`))).toEqual(['Dune', 'Heat', 'Lolita']);
    expect(rows(await page(`/lists/${list.id}?view=table&where=${prop('Shelf').id}&value=${option('Shelf', 'Classics')}`))).toEqual(['Lolita']);
    expect(rows(await page(`/lists/${list.id}?view=table&where=title&value=ol`))).toEqual(['Lolita']);
  });

  it('pages through a list of more than 200 items in the list view and the table; the board says where the rest are', async () => {
    const { list, prop, option } = await readingList();
    // 450 books: "Book 001" to "Book 450", Pages = the number, every third on the Classics shelf (in fives of 90: create_items takes 100 at most).
    for (let start = 1; start <= 450; start += 90) {
      const items = Array.from({ length: 90 }, (_, i) => {
        const n = start + i;
        return { title: `Book ${String(n).padStart(3, '0')}`, values: { Pages: n, Shelf: n % 3 === 0 ? 'Classics' : 'Sci-fi' } };
      });
      await create_items(ctx(), { listId: list.id, items });
    }
    const rows = (html: string) => [...html.matchAll(/<th scope="row"><a href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]!);
    const link = (html: string, label: string) => {
      const found = [...html.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].find((m) => m[2] === label);
      return found ? found[1]!.replaceAll('&amp;', '&') : null;
    };

    // The table, sorted by Pages: 1–200, 201–400, 401–450, and back.
    const first = await page(`/lists/${list.id}?view=table&sort=${prop('Pages').id}&dir=asc`);
    expect(rows(first)).toHaveLength(200);
    expect(rows(first)[0]).toBe('Book 001');
    expect(first).toContain('1–200 of 450');
    expect(link(first, 'Previous 200')).toBeNull();
    const second = await page(link(first, 'Next 200')!);
    expect(rows(second)[0]).toBe('Book 201');
    expect(second).toContain('201–400 of 450');
    const third = await page(link(second, 'Next 200')!);
    expect(rows(third)).toEqual(Array.from({ length: 50 }, (_, i) => `Book ${401 + i}`));
    expect(link(third, 'Next 200')).toBeNull();
    expect(rows(await page(link(third, 'Previous 200')!))[0]).toBe('Book 201');
    // A cell saved on a later page goes back to that page.
    expect(second).toContain(`name="back" value="/lists/${list.id}?view=table&amp;sort=${prop('Pages').id}&amp;dir=asc&amp;offset=200"`);

    // A filter is kept by the column headers and the pages: the 300 on the Sci-fi shelf.
    const scifi = await page(`/lists/${list.id}?view=table&where=${prop('Shelf').id}&value=${option('Shelf', 'Sci-fi')}`);
    expect(scifi).toContain('1–200 of 300');
    const byPages = await page(link(scifi, 'Pages')!);
    expect(rows(byPages).slice(0, 3)).toEqual(['Book 001', 'Book 002', 'Book 004']);
    const nextScifi = await page(link(byPages, 'Next 200')!);
    expect(nextScifi).toContain('201–300 of 300');
    expect(rows(nextScifi)).toHaveLength(100);
    expect(rows(nextScifi).every((title) => Number(title.slice(5)) % 3 !== 0)).toBe(true);
    // An offset that is not a number reads the first page.
    expect(rows(await page(`/lists/${list.id}?view=table&offset=lots`))).toHaveLength(200);

    // The list view: 200, then the rest after its cursor, then back to the first.
    const listView = await page(`/lists/${list.id}?view=list`);
    const shown = (html: string) => [...html.matchAll(/<a href="\/artifacts\/[^"]+">(Book \d+)<\/a>/g)].map((m) => m[1]!);
    expect(shown(listView)).toHaveLength(200);
    const rest = await page(link(listView, 'Next 200')!);
    expect(shown(rest)).toHaveLength(200);
    const last = await page(link(rest, 'Next 200')!);
    expect(new Set([...shown(listView), ...shown(rest), ...shown(last)]).size).toBe(450);
    expect(link(last, 'Next 200')).toBeNull();
    expect(link(last, 'Back to the first 200')).toBe(`/lists/${list.id}?view=list`);
    // A cursor from nowhere: the first page, and a sentence saying why.
    const bad = await page(`/lists/${list.id}?view=list&cursor=not-a-cursor`);
    expect(bad).toContain('The first page is shown.');
    expect(shown(bad)).toEqual(shown(listView));

    // The board holds 200 and says the table has them all.
    expect(await page(`/lists/${list.id}?view=board&groupBy=${prop('Shelf').id}`)).toContain('The board holds the first 200 of 450 items');
  });

  it('groups the board by status or by a choice, and moves a card', async () => {
    const { list, prop, option } = await readingList();
    const heat = (await create_items(ctx(), { listId: list.id, items: [{ title: 'Heat', values: { Shelf: 'Sci-fi' } }] })).items[0]!.id;
    const board = await page(`/lists/${list.id}?view=board`);
    expect(board).toContain('<div class="board">');
    expect(board).toMatch(/data-value="[^"]+" aria-labelledby="[^"]+"><h2[^>]*>Sci-fi <span class="muted">1<\/span>/);
    const moved = await post(`/items/${heat}/value`, { property: prop('Shelf').id, value: option('Shelf', 'Classics'), back: `/lists/${list.id}?view=board` });
    expect(moved.status).toBe(303);
    expect((await get_item(ctx(), { id: heat })).values[prop('Shelf').id]).toBe(option('Shelf', 'Classics'));

    const tasks = (await list_lists(ctx(), {})).tasksListId!;
    const task = (await create_items(ctx(), { items: [{ title: 'Board task' }] })).items[0]!.id;
    expect(await page(`/lists/${tasks}?view=board`)).toMatch(/<h2[^>]*>In progress <span class="muted">/);
    await post(`/items/${task}/value`, { property: 'status', value: 'inProgress', back: `/lists/${tasks}?view=board` });
    expect((await get_item(ctx(), { id: task })).taskStatus).toBe('inProgress');
  });

  it('completes a task from the list view, deletes it, and restores it from the trash', async () => {
    const tasks = (await list_lists(ctx(), {})).tasksListId!;
    const id = (await create_items(ctx(), { items: [{ title: 'Water the plants' }] })).items[0]!.id;
    expect(await page(`/lists/${tasks}?view=list`)).toContain('aria-label="Complete Water the plants"');
    await post(`/items/${id}/value`, { property: 'status', value: 'completed', back: `/lists/${tasks}` });
    expect((await get_item(ctx(), { id })).taskStatus).toBe('completed');
    const deleted = await post(`/items/${id}/delete`, { back: `/lists/${tasks}` });
    expect(deleted.headers.get('location')).toBe(`/lists/${tasks}?done=deleted`);
    const trash = await page('/trash');
    expect(trash).toContain('Water the plants');
    // A restore without this browser's token is refused and restores nothing.
    expect((await web.request('/trash/restore', { form: { csrf: 'forged', type: 'item', id } })).status).toBe(403);
    expect(await server.db('items').where({ id }).whereNull('deleted_at').first()).toBeUndefined();
    const restored = await post('/trash/restore', { type: 'item', id });
    expect(restored.headers.get('location')).toBe('/trash?restored=item');
    expect((await get_item(ctx(), { id })).title).toBe('Water the plants');
    expect(await page('/trash')).not.toContain('Water the plants');
  });

  it("shows nobody else's list, and changes nobody else's item", async () => {
    const bea = await server.account('Bea', PASSWORD);
    const beas = (await list_lists(server.context(bea), {})).tasksListId!;
    const item = (await create_items(server.context(bea), { items: [{ title: 'Private' }] })).items[0]!.id;
    expect((await web.request(`/lists/${beas}`)).status).toBe(404);
    const res = await post(`/items/${item}/value`, { property: 'status', value: 'completed', back: '/lists' });
    expect(res.status).toBe(404);
    expect((await get_item(server.context(bea), { id: item })).taskStatus).toBe('todo');
  });
});

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
