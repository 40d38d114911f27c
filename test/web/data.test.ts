/**
 * Settings → Your data in headless Chromium: a person uploads a CSV, sees each column's
 * mapping and the first items, changes a column, starts the import and watches it finish on
 * the page; downloads the workspace as JSON and a list as CSV. Over plain HTTP: a signed-out
 * visitor is sent to sign in, and a form without this browser's CSRF token is refused with
 * nothing written.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { useTestServer, type TestAccount } from '../support/server.js';
import { startTestJobs } from '../support/jobs.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { HttpBrowser } from '../support/oauth.js';
import type { Jobs } from '../../src/jobs/queue.js';

const PASSWORD = 'correct horse battery staple';

describe('the Your data page', () => {
  const { server } = useTestServer({
    accounts: [],
    beforeClose: async () => {
      await jobs.stop();
      await browser?.close();
    },
  });
  let jobs: Jobs;
  let browser: TestBrowser;
  let ada: TestAccount;
  let dir: string;
  beforeAll(async () => {
    [jobs, browser] = await Promise.all([startTestJobs(server), launchBrowser({ viewport: { width: 390, height: 844 } })]);
    ada = await server.account('Ada', PASSWORD);
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-web-data-'));
  });

  it('sends a signed-out visitor to sign in, and refuses a form without the CSRF token', async () => {
    const res = await new HttpBrowser(server.baseUrl).request('/settings/data');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/signin?next=%2Fsettings%2Fdata');
    const form = new FormData();
    form.set('csrf', 'forged');
    form.set('file', new Blob(['Title\nx\n'], { type: 'text/csv' }), 'x.csv');
    const tab = await browser.context.newPage();
    await tab.goto(`${server.baseUrl}/signin?next=/settings/data`);
    await tab.fill('#email', ada.email);
    await tab.fill('#password', PASSWORD);
    await Promise.all([tab.waitForURL('**/settings/data'), tab.click('button[type=submit]')]);
    const refused = await tab.request.post(`${server.baseUrl}/settings/data/import`, {
      multipart: { csrf: 'forged', file: { name: 'x.csv', mimeType: 'text/csv', buffer: Buffer.from('Title\nx\n') } },
    });
    expect(refused.status()).toBe(400);
    expect(await refused.text()).toContain('This form expired or was sent from another site');
    expect(await server.db('imports').where({ owner_id: ada.userId })).toEqual([]);
    await tab.close();
  });

  it('uploads a CSV, shows the mapping, takes a change, imports it and shows it done', async () => {
    const file = path.join(dir, 'Reading list.csv');
    await writeFile(file, 'Book,Pages,Shelf,Thoughts\nDune,412,Sci-fi,great\nEmma,474,Classics,slow start\nHeat,300,Sci-fi,\nLolita,336,Classics,\n');
    const tab = await browser.context.newPage();
    await tab.goto(`${server.baseUrl}/settings/data`);
    expect(await tab.textContent('h1')).toBe('Your data');
    await tab.setInputFiles('#file', file);
    await Promise.all([tab.waitForURL('**/settings/data/preview'), tab.click('form[action="/settings/data/preview"] button[type=submit]')]);
    expect(await tab.textContent('h1')).toBe('Check the import');
    expect(await tab.textContent('main')).toContain('4 items in one list. Nothing is written until you start the import.');
    expect(await tab.inputValue('#to-0')).toBe('title');
    expect(await tab.inputValue('#to-1')).toBe('property');
    expect(await tab.inputValue('#type-1')).toBe('number');
    expect(await tab.inputValue('#to-3')).toBe('property');
    expect(await server.db('imports').where({ owner_id: ada.userId })).toEqual([]);

    // Thoughts is the body, not a property; the preview shows it, then the import starts.
    await tab.selectOption('#to-3', 'body');
    await Promise.all([tab.waitForURL('**/settings/data/preview'), tab.click('button[formaction="/settings/data/preview"]')]);
    expect(await tab.inputValue('#to-3')).toBe('body');
    expect(await tab.textContent('main')).toContain('new properties: Pages (number), Shelf (select)');
    await tab.screenshot({ path: '.tmp/import-preview.png', fullPage: true });
    await Promise.all([tab.waitForURL(/\/settings\/data\?import=/), tab.click('button:has-text("Start the import")')]);
    // The page reloads itself while the import runs.
    await tab.waitForSelector('text=/succeeded · 4 of 4 items/', { timeout: 20000 });
    expect(await tab.textContent('main')).toContain('Reading list: 4 added, 0 updated');

    const list = (await ada.sdk.GET('/lists', {})).data!.lists.find((l) => l.name === 'Reading list')!;
    const items = (await ada.sdk.GET('/items', { params: { query: { listId: list.id, valuesBy: 'name' } } })).data!.items;
    expect(items.map((i) => [i.title, i.body, i.values])).toEqual([
      ['Dune', 'great', { Pages: 412, Shelf: 'Sci-fi' }],
      ['Emma', 'slow start', { Pages: 474, Shelf: 'Classics' }],
      ['Heat', null, { Pages: 300, Shelf: 'Sci-fi' }],
      ['Lolita', null, { Pages: 336, Shelf: 'Classics' }],
    ]);

    const [download] = await Promise.all([tab.waitForEvent('download'), tab.click('text=Download everything (JSON)')]);
    const saved = path.join(dir, 'export.json');
    await download.saveAs(saved);
    const doc = JSON.parse(await readFile(saved, 'utf8')) as { format: string; lists: { name: string; items: unknown[] }[] };
    expect(doc.format).toBe('listkeeper.export');
    expect(doc.lists.find((l) => l.name === 'Reading list')!.items).toHaveLength(4);

    await tab.selectOption('#list', list.id);
    const [csv] = await Promise.all([tab.waitForEvent('download'), tab.click('text=Download CSV')]);
    const csvPath = path.join(dir, 'list.csv');
    await csv.saveAs(csvPath);
    expect((await readFile(csvPath, 'utf8')).split('\n')[0]).toBe('id,Title,body,Pages,Shelf,externalId,createdAt,updatedAt');
    await tab.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('shows a refusal on the page, naming what to change', async () => {
    const tab = await browser.context.newPage();
    await tab.goto(`${server.baseUrl}/settings/data`);
    const file = path.join(os.tmpdir(), `not-todoist-${Date.now()}.csv`);
    await writeFile(file, 'Title\nx\n');
    await tab.setInputFiles('#file', file);
    await tab.selectOption('#format', 'todoist');
    await Promise.all([tab.waitForURL('**/settings/data/preview'), tab.click('form[action="/settings/data/preview"] button[type=submit]')]);
    expect(await tab.textContent('[role=alert]')).toContain('This is not a Todoist CSV: it has no TYPE column');
    await rm(file, { force: true });
    await tab.close();
  });
});
