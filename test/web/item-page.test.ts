/**
 * The item page edits the item: over plain HTTP the form is submitted as a browser submits
 * it (every field of the edit form, check boxes only when ticked), and what it wrote is read
 * back through get_item; a refusal is compared with what REST answers for the same input. A
 * row shared with the person offers only what they may change (one by one: title and notes).
 * In Chromium (JavaScript on): an image chosen in the drop zone is uploaded through the
 * upload slots and attached, and the notes' preview follows the typing (htmx).
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestServer, type TestAccount } from '../support/server.js';
import { type HttpBrowser, formValue, signInOverHttp } from '../support/oauth.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { PNG } from '../support/images.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { update_list } from '../../src/operations/update_list.js';
import { get_item } from '../../src/operations/get_item.js';
import { update_items } from '../../src/operations/update_items.js';
import { list_deleted } from '../../src/operations/list_deleted.js';
import { escapeHtml } from '../../src/web/html.js';
import { createShare } from '../../src/domain/lists/shares.js';

const PASSWORD = 'correct horse battery staple';

function signedIn(server: TestServer, account: TestAccount): Promise<HttpBrowser> {
  return signInOverHttp(server.baseUrl, account.email, PASSWORD, '/lists');
}

const unentity = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const attr = (tag: string, name: string) => {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unentity(m[1]!) : null;
};

/** The edit form's fields as a browser submits them: inputs in order, check boxes only when ticked, the chosen option, the textarea. */
function submission(page: string): URLSearchParams {
  const form = /<form method="post" action="[^"]*" class="item-form">([\s\S]*?)<\/form>/.exec(page)![1]!;
  const out = new URLSearchParams();
  for (const m of form.matchAll(/<input\b[^>]*>|<select\b[^>]*>[\s\S]*?<\/select>|<textarea\b[^>]*>([\s\S]*?)<\/textarea>/g)) {
    const tag = m[0];
    const name = attr(tag, 'name');
    if (!name) continue;
    if (tag.startsWith('<textarea')) out.append(name, unentity(m[1]!.replace(/^\n/, '')));
    else if (tag.startsWith('<select')) out.append(name, attr(/<option[^>]*\sselected[^>]*>/.exec(tag)?.[0] ?? '<option value="">', 'value') ?? '');
    else if (attr(tag, 'type') === 'checkbox') {
      if (/\schecked/.test(tag)) out.append(name, attr(tag, 'value') ?? 'on');
    } else out.append(name, attr(tag, 'value') ?? '');
  }
  return out;
}

/** Sets a field of a submission (every earlier value of it replaced). */
function set(form: URLSearchParams, name: string, ...values: string[]): URLSearchParams {
  form.delete(name);
  for (const v of values) form.append(name, v);
  return form;
}

describe('the item page edits the item', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  let web: HttpBrowser;
  let listId: string;
  let prop: Record<string, string>;
  let options: Record<string, string>;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
    web = await signedIn(server, ada);
    const list = await create_list(server.context(ada), { name: 'Reading', template: 'tasks' });
    listId = list.id;
    const updated = await update_list(server.context(ada), {
      id: list.id,
      addProperties: [
        { name: 'Pages', type: 'number' },
        { name: 'Started', type: 'date' },
        { name: 'Format', type: 'select', options: ['Paper', 'Ebook'] },
        { name: 'Tags', type: 'multiSelect', options: ['fun', 'work'] },
        { name: 'Owned', type: 'checkbox' },
        { name: 'Link', type: 'url' },
        { name: 'Author email', type: 'email' },
        { name: 'Note', type: 'text' },
      ],
    });
    const properties = (updated as { properties: { id: string; name: string; options?: { id: string; label: string }[] }[] }).properties;
    prop = Object.fromEntries(properties.map((p) => [p.name, p.id]));
    options = Object.fromEntries(properties.flatMap((p) => (p.options ?? []).map((o) => [o.label, o.id])));
  });
  const ctx = () => server.context(ada);

  async function book(extra: Record<string, unknown> = {}): Promise<string> {
    const created = await create_items(ctx(), {
      listId,
      items: [
        {
          title: 'Dune',
          body: 'A *desert* planet.',
          taskStatus: 'todo',
          dueAt: '2026-12-24',
          labels: ['books'],
          values: {
            Pages: 412,
            Started: '2026-11-02',
            Format: 'Paper',
            Tags: ['fun'],
            Owned: true,
            Link: 'https://example.com/dune',
            'Author email': 'frank@example.com',
            Note: 'Reread',
          },
          ...extra,
        },
      ],
    });
    expect(created.failed).toEqual([]);
    return created.items[0]!.id;
  }

  it('shows the value of every property of the list in an input of its type', async () => {
    const id = await book({ reminderAt: '2026-12-23T18:00:00Z', recurrence: 'every year' });
    const page = await (await web.request(`/artifacts/${id}`)).text();
    expect(page).toContain(`<input type="number" id="f-${prop.Pages}" name="v:${prop.Pages}" value="412" step="any">`);
    expect(page).toContain(`<input type="date" id="f-${prop.Started}" name="v:${prop.Started}" value="2026-11-02">`);
    expect(page).toContain(`<option value="${options.Paper}" selected>Paper</option>`);
    expect(page).toContain(`name="v:${prop.Tags}" value="${options.fun}" checked> fun`);
    expect(page).toContain(`name="v:${prop.Tags}" value="${options.work}"> work`);
    expect(page).toMatch(new RegExp(`<input type="checkbox" id="f-${prop.Owned}" name="v:${prop.Owned}" value="true" checked> Owned`));
    expect(page).toContain(`<input type="url" id="f-${prop.Link}" name="v:${prop.Link}" value="https://example.com/dune">`);
    expect(page).toContain(`<input type="email" id="f-${prop['Author email']}" name="v:${prop['Author email']}" value="frank@example.com">`);
    expect(page).toContain(`name="v:${prop.Note}" value="Reread"`);
    expect(page).toContain('<option value="todo" selected>To do</option>');
    expect(page).toContain('name="dueAt" value="24 Dec 2026"');
    expect(page).toMatch(/name="reminderAt" value="23 Dec 2026, 18:00"/);
    expect(page).toContain('name="recurrence" value="every year"');
    expect(page).toContain('name="labels" value="books"');
    // Every input of the edit form has a label.
    const form = /class="item-form">([\s\S]*?)<\/form>/.exec(page)![1]!;
    for (const m of form.matchAll(/<(?:input|select|textarea)\b[^>]*\sid="([^"]+)"/g)) expect(form).toMatch(new RegExp(`<label[^>]*for="${m[1]}"`));
  });

  it('saves title, notes, values, status, due date, reminder, repeat and labels, and leaves what the person did not touch', async () => {
    const id = await book();
    const form = submission(await (await web.request(`/artifacts/${id}`)).text());
    // An agent changes the note while the page is open: the save must not put the old one back.
    await update_items(ctx(), { items: [{ itemId: id, values: { Note: 'Changed by an agent' } }] });
    set(form, 'title', 'Dune Messiah');
    set(form, 'body', 'Paul, **twelve** years on.\r\n\r\n- [ ] read it');
    set(form, `v:${prop.Pages}`, '336');
    set(form, `v:${prop.Format}`, options.Ebook!);
    set(form, `v:${prop.Tags}`, '', options.work!);
    set(form, `v:${prop.Owned}`, 'false');
    set(form, `v:${prop.Started}`, '');
    set(form, 'taskStatus', 'inProgress');
    set(form, 'dueAt', 'tomorrow 5pm');
    set(form, 'reminderAt', '30 minutes before');
    set(form, 'recurrence', 'every week');
    set(form, 'labels', 'books, Sci-fi ,');
    set(form, 'intent', 'save');
    const res = await web.request(`/artifacts/${id}`, { form });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/artifacts/${id}?notice=saved`);
    const item = await get_item(ctx(), { id });
    expect(item.title).toBe('Dune Messiah');
    expect(item.body).toBe('Paul, **twelve** years on.\n\n- [ ] read it');
    expect(item.values).toEqual({
      [prop.Pages!]: 336,
      [prop.Format!]: options.Ebook,
      [prop.Tags!]: [options.work],
      [prop.Owned!]: false,
      [prop.Link!]: 'https://example.com/dune',
      [prop['Author email']!]: 'frank@example.com',
      [prop.Note!]: 'Changed by an agent',
    });
    expect(item.taskStatus).toBe('inProgress');
    expect(item.hasDueTime).toBe(true);
    expect(new Date(item.reminderAt!).getTime()).toBe(new Date(item.dueAt!).getTime() - 30 * 60_000);
    expect(item.recurrence?.rule).toContain('FREQ=WEEKLY');
    expect(item.labels).toEqual(['books', 'Sci-fi']);
    const page = await (await web.request(`/artifacts/${id}?notice=saved`)).text();
    expect(page).toContain('<p class="notice" role="status">Saved.</p>');
    expect(page).toContain('Paul, <strong>twelve</strong> years on.');
  });

  it("keeps the person's notes when an agent changed them meanwhile, and replaces them only when saved again", async () => {
    const id = await book();
    const form = submission(await (await web.request(`/artifacts/${id}`)).text());
    const opened = await get_item(ctx(), { id });
    await update_items(ctx(), { items: [{ itemId: id, edits: [{ op: 'rewrite', baseVersion: opened.bodyVersion, markdown: 'Summary by the agent.' }] }] });
    set(form, 'title', 'Dune, annotated');
    set(form, 'body', 'My own notes.');
    set(form, 'intent', 'save');
    const res = await web.request(`/artifacts/${id}`, { form });
    expect(res.status).toBe(409);
    const page = await res.text();
    expect(page).toContain('<p class="error" role="alert">These notes changed while you were editing them');
    expect(page).toContain('<p>Summary by the agent.</p>'); // the notes as they are now
    expect(page).toMatch(/<textarea[^>]*name="body"[^>]*>\n?My own notes\.<\/textarea>/);
    const meanwhile = await get_item(ctx(), { id });
    expect([meanwhile.title, meanwhile.body]).toEqual(['Dune', 'Summary by the agent.']);
    expect(page).toContain(`name="bodyVersion" value="${meanwhile.bodyVersion}"`);

    const again = await web.request(`/artifacts/${id}`, { form: set(submission(page), 'intent', 'save') });
    expect(again.status).toBe(303);
    const saved = await get_item(ctx(), { id });
    expect([saved.title, saved.body]).toEqual(['Dune, annotated', 'My own notes.']);
  });

  it('writes nothing when nothing changed', async () => {
    const id = await book();
    const before = await get_item(ctx(), { id });
    const res = await web.request(`/artifacts/${id}`, { form: submission(await (await web.request(`/artifacts/${id}`)).text()) });
    expect(res.headers.get('location')).toBe(`/artifacts/${id}?notice=unchanged`);
    expect((await get_item(ctx(), { id })).updatedAt).toBe(before.updatedAt);
  });

  it('shows the sentence REST answers for a bad value, with its status, keeps what was typed and writes nothing', async () => {
    const id = await book();
    const form = submission(await (await web.request(`/artifacts/${id}`)).text());
    set(form, 'title', 'Not saved');
    set(form, `v:${prop.Pages}`, 'abc');
    const rest = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: id, title: 'Not saved', values: { [prop.Pages!]: 'abc' } }] } });
    expect(rest.response.status).toBe(409);
    const res = await web.request(`/artifacts/${id}`, { form });
    expect(res.status).toBe(rest.response.status);
    const page = await res.text();
    expect(page).toContain(`<p class="error" role="alert">${escapeHtml((rest.error as { error: string }).error)}</p>`);
    expect(page).toContain(`name="v:${prop.Pages}" value="abc"`);
    expect(page).toContain('name="title" value="Not saved"');
    expect((await get_item(ctx(), { id })).title).toBe('Dune');

    const dueBefore = (await get_item(ctx(), { id })).dueAt;
    const due = submission(await (await web.request(`/artifacts/${id}`)).text());
    set(due, 'dueAt', 'when the spice flows');
    const restDue = await ada.sdk.PATCH('/items', { body: { items: [{ itemId: id }], dueAt: 'when the spice flows' } });
    const resDue = await web.request(`/artifacts/${id}`, { form: due });
    expect(resDue.status).toBe(restDue.response.status);
    expect(await resDue.text()).toContain(`role="alert">${escapeHtml((restDue.error as { error: string }).error)}</p>`);
    expect((await get_item(ctx(), { id })).dueAt).toBe(dueBefore);
  });

  it('shows the saved notes in the preview, not the hint to type some', async () => {
    const id = await book();
    const page = await (await web.request(`/artifacts/${id}`)).text();
    expect(page).toContain('<div id="preview" class="markdown" aria-live="polite"><p>A <em>desert</em> planet.</p>');
  });

  it('previews the notes without JavaScript, keeping the draft and writing nothing', async () => {
    const id = await book();
    const form = set(submission(await (await web.request(`/artifacts/${id}`)).text()), 'body', 'Now **bold**');
    set(form, 'intent', 'preview');
    const res = await web.request(`/artifacts/${id}`, { form });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('<div id="preview" class="markdown" aria-live="polite"><p>Now <strong>bold</strong></p>');
    expect(page).toContain('>\nNow **bold**</textarea>');
    expect((await get_item(ctx(), { id })).body).toBe('A *desert* planet.');
    // The fragment htmx asks for.
    const fragment = await web.request(`/artifacts/${id}/preview`, { form: { csrf: form.get('csrf')!, body: '# Hi' } });
    expect(await fragment.text()).toBe('<h1>Hi</h1>');
  });

  it('refuses a POST without the CSRF token, and answers 404 for an item of someone else', async () => {
    const id = await book();
    const csrf = formValue(await (await web.request(`/artifacts/${id}`)).text(), 'csrf');
    expect((await web.request(`/artifacts/${id}`, { form: { title: 'Forged', intent: 'save' } })).status).toBe(403);
    expect((await web.request(`/artifacts/${id}/delete`, { form: {} })).status).toBe(403);
    const slot = await web.request(`/artifacts/${id}/uploads`, { form: { mimeType: 'image/png' } });
    expect(slot.status).toBe(403);
    expect(await slot.json()).toHaveProperty('error');
    expect((await get_item(ctx(), { id })).title).toBe('Dune');

    const bea = await server.account('Bea');
    const theirs = (await create_items(server.context(bea), { items: [{ title: 'Bea only' }] })).items[0]!.id;
    expect((await web.request(`/artifacts/${theirs}`)).status).toBe(404);
    expect((await web.request(`/artifacts/${theirs}`, { form: { csrf, title: 'Mine now', intent: 'save' } })).status).toBe(404);
    expect((await web.request(`/artifacts/${theirs}/status`, { form: { csrf, status: 'completed' } })).status).toBe(404);
    expect((await web.request(`/artifacts/${theirs}/delete`, { form: { csrf } })).status).toBe(404);
    expect((await web.request(`/artifacts/${theirs}/uploads`, { form: { csrf, mimeType: 'image/png' } })).status).toBe(404);
    const still = await get_item(server.context(bea), { id: theirs });
    expect([still.title, still.taskStatus]).toEqual(['Bea only', 'todo']);
  });

  it('shows a row shared one by one with the fields its recipient may change, and saves them', async () => {
    const id = await book();
    const cleo = await server.account('Cleo', PASSWORD);
    await createShare(server.db, { itemId: id }, cleo.userId);
    const theirs = await signedIn(server, cleo);
    const page = await (await theirs.request(`/artifacts/${id}`)).text();
    // Title and notes: inputs. Status, dates, labels and values: the owner's, shown but not offered.
    expect(page).toContain('name="title"');
    expect(page).toContain('name="body"');
    expect(page).toContain('Shared with you for its title and notes');
    for (const name of ['taskStatus', 'dueAt', 'reminderAt', 'recurrence', 'labels', `v:${prop.Pages}`]) expect(page).not.toContain(`name="${name}"`);
    expect(page).not.toMatch(/name="v:/);
    expect(page).toContain('Status: <strong>To do</strong>');
    // No Complete, Delete, subtask or image form, and no link to the owner's list.
    for (const action of [
      `/artifacts/${id}/status`,
      `/artifacts/${id}/delete`,
      `/artifacts/${id}/subtasks`,
      `/artifacts/${id}/uploads`,
      `href="/lists/${listId}"`,
    ])
      expect(page).not.toContain(action);
    // What the page sends is what the recipient may change: it saves.
    const saved = await theirs.request(`/artifacts/${id}`, { form: set(set(submission(page), 'title', 'Dune (annotated)'), 'intent', 'save') });
    expect(saved.status).toBe(303);
    const after = await get_item(ctx(), { id });
    expect([after.title, after.values[prop.Pages!], after.taskStatus]).toEqual(['Dune (annotated)', 412, 'todo']);
  });

  it('offers every field but Delete on a row of a list shared whole', async () => {
    const id = await book();
    const dan = await server.account('Dan', PASSWORD);
    await createShare(server.db, { listId }, dan.userId);
    const page = await (await (await signedIn(server, dan)).request(`/artifacts/${id}`)).text();
    expect(page).toContain('name="taskStatus"');
    expect(page).toContain(`/artifacts/${id}/status`);
    expect(page).not.toContain(`/artifacts/${id}/delete`);
    expect(page).not.toContain('Shared with you for its title and notes');
  });

  it('adds a subtask, completes and reopens it from the parent, and links the parent from it', async () => {
    const id = await book();
    const csrf = formValue(await (await web.request(`/artifacts/${id}`)).text(), 'csrf');
    const added = await web.request(`/artifacts/${id}/subtasks`, { form: { csrf, title: 'Buy a bookmark' } });
    expect(added.status).toBe(303);
    const child = (await get_item(ctx(), { id })).children![0]!;
    expect(child.title).toBe('Buy a bookmark');
    const page = await (await web.request(`/artifacts/${id}`)).text();
    expect(page).toContain(`<a href="/artifacts/${child.id}">Buy a bookmark</a>`);
    expect(page).toContain('aria-label="Complete “Buy a bookmark”"');
    const done = await web.request(`/artifacts/${child.id}/status`, { form: { csrf, status: 'completed', back: `/artifacts/${id}` } });
    expect(done.headers.get('location')).toBe(`/artifacts/${id}`);
    expect((await get_item(ctx(), { id: child.id })).taskStatus).toBe('completed');
    expect(await (await web.request(`/artifacts/${id}`)).text()).toContain('aria-label="Reopen “Buy a bookmark”"');
    await web.request(`/artifacts/${child.id}/status`, { form: { csrf, status: 'todo', back: `/artifacts/${id}` } });
    expect((await get_item(ctx(), { id: child.id })).taskStatus).toBe('todo');
    expect(await (await web.request(`/artifacts/${child.id}`)).text()).toContain(`<p>Subtask of <a href="/artifacts/${id}">Dune</a></p>`);
  });

  it('deletes to the trash and goes to the list', async () => {
    const id = await book();
    const csrf = formValue(await (await web.request(`/artifacts/${id}`)).text(), 'csrf');
    const res = await web.request(`/artifacts/${id}/delete`, { form: { csrf } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/lists/${listId}`);
    const trash = await list_deleted(ctx(), {});
    expect(JSON.stringify(trash)).toContain(id);
    expect((await web.request(`/artifacts/${id}`)).status).toBe(404);
  });
});

describe('the item page in the browser', () => {
  const { server } = useTestServer({ accounts: [], beforeClose: async () => browser?.close() });
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser({ viewport: { width: 360, height: 800 } });
  });

  it('uploads a chosen image through the drop zone, and previews the notes as they are typed', async () => {
    const ada = await server.account('Ada', PASSWORD);
    const id = (await create_items(server.context(ada), { items: [{ title: 'Fix the bike', body: 'Chain' }] })).items[0]!.id;
    const tab = await browser.context.newPage();
    await tab.goto(`${server.baseUrl}/artifacts/${id}`);
    await tab.fill('#email', ada.email);
    await tab.fill('#password', PASSWORD);
    await Promise.all([tab.waitForURL(`**/artifacts/${id}`), tab.click('button[type=submit]')]);
    // Readable at 360 px: nothing wider than the screen.
    expect(await tab.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await Promise.all([tab.waitForEvent('load'), tab.setInputFiles('#attach-files', { name: 'chain.png', mimeType: 'image/png', buffer: PNG })]);
    await tab.waitForSelector('ul.attachments img');
    expect(await tab.locator('ul.attachments img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    expect(await tab.locator('ul.attachments img').getAttribute('alt')).toBeTruthy();
    expect((await get_item(server.context(ada), { id })).attachments).toHaveLength(1);

    await tab.fill('#f-body', 'Oil the **chain**');
    await tab.waitForSelector('#preview strong');
    expect(await tab.textContent('#preview')).toBe('Oil the chain');
    await tab.screenshot({ path: '.tmp/item-page-edit.png', fullPage: true });
    await tab.close();
  });
});
