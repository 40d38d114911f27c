/**
 * The person's web app in Chromium, scripts on, as one walk: sign in → create a list with
 * properties → add items → edit a value in the table → move an item on the board → complete it
 * → search for it → delete it → restore it from the trash → remove an OAuth app and a webhook
 * subscription; and, in a browser nobody is signed in on, sign up (landing signed in) and
 * quick add (the page names the task and its due date). On every page axe-core (WCAG 2 A/AA
 * rules and best practices) finds no serious or critical violation, and the page fits a
 * phone's width. The README's screenshots are taken here, so they show the pages as they are:
 * under .tmp/screenshots, or into docs/screenshots/ with `make screenshots` (SCREENSHOTS_DIR),
 * so a test run changes no committed file.
 */
import { readFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it, expect, beforeAll } from '@jest/globals';
import type { Page } from 'playwright-core';
import { useTestServer, type TestAccount } from '../support/server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { HttpBrowser, authorizeInBrowser, authorizeUrl, codeFrom, pkce, registerClient } from '../support/oauth.js';
import { startReceiver, type Receiver } from '../support/events.js';
import { mintSecret } from '../../src/domain/changes/subscriptions.js';
import { REACH_LOCAL_SERVERS } from '../support/net.js';
import { formatTime } from '../../src/web/format.js';

const PASSWORD = 'correct horse battery staple';
const SCREENSHOTS = path.resolve(process.env.SCREENSHOTS_DIR ?? '.tmp/screenshots');
const SETUP_MS = 240_000;

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }>;
}

describe('the web app, walked in Chromium', () => {
  const { server } = useTestServer({
    env: REACH_LOCAL_SERVERS,
    accounts: [],
    search: true,
    beforeClose: async () => Promise.all([chromium?.close(), receiver?.close()]),
  });
  let chromium: TestBrowser;
  let receiver: Receiver;
  let ada: TestAccount;
  let axeSource: string;
  beforeAll(async () => {
    axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    [chromium, receiver, ada] = await Promise.all([
      launchBrowser({ viewport: { width: 1200, height: 860 } }),
      startReceiver(),
      server.account('Ada', PASSWORD, 'ada@example.com'),
    ]);
    await mkdir(SCREENSHOTS, { recursive: true });
  }, SETUP_MS);

  /** axe-core on the page as it is now: no serious or critical violation. */
  async function accessible(page: Page): Promise<void> {
    await page.evaluate(axeSource);
    const result = (await page.evaluate(() =>
      (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } }).axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      }),
    )) as AxeResult;
    const bad = result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${new URL(page.url()).pathname}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(bad).toEqual([]);
  }

  async function shoot(page: Page, name: string): Promise<void> {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false });
  }

  /** Signs the browser in as Ada unless it is (the walk signs in; this test may run without it). */
  async function signedIn(page: Page): Promise<void> {
    await page.goto(`${server.baseUrl}/lists`);
    if (new URL(page.url()).pathname !== '/signin') return;
    await page.fill('#email', ada.email);
    await page.fill('#password', PASSWORD);
    await clickTo(page, 'button[type=submit]', '**/lists');
  }

  /** Waits for the page a click leads to. */
  async function clickTo(page: Page, selector: string, url: string | RegExp): Promise<void> {
    await Promise.all([page.waitForURL(url), page.click(selector)]);
  }

  /** Creates the Reading list from the home page's New list form (shown as a table) and adds three items; its path. */
  async function makeReadingList(page: Page): Promise<string> {
    // Create a list with properties, shown as a table: the form opens from its button.
    expect(await page.isVisible('#list-name')).toBe(false);
    await page.click('summary:text("New list")');
    await page.fill('#list-name', 'Reading list');
    await page.fill('#p1-name', 'Pages');
    await page.selectOption('#p1-type', 'number');
    await page.fill('#p2-name', 'Shelf');
    await page.selectOption('#p2-type', 'select');
    await page.fill('#p2-options', 'To read, Reading, Done');
    await page.selectOption('#list-layout', 'table');
    await accessible(page);
    await shoot(page, 'lists');
    await clickTo(page, 'form[action="/lists"] button[type=submit]', /\/lists\/[0-9a-f-]{36}$/);
    const listPath = new URL(page.url()).pathname;
    expect(await page.textContent('h1')).toBe('Reading list');

    // Add items.
    for (const title of ['Dune', 'Emma', 'Heat']) {
      await page.fill('#quick-title', title);
      await clickTo(page, `form[action="${listPath}/items"] button[type=submit]`, new RegExp(`${listPath}\\?view=table$`));
    }
    expect(await page.locator('table.items tbody tr').count()).toBe(3);
    return listPath;
  }

  /** Edits two values of Dune in the table: htmx sends each cell on change and swaps in the answer. */
  async function editInTable(page: Page): Promise<{ id: string; values: Record<string, unknown> }> {
    const pages = page.getByLabel('Pages of Dune');
    const saved = page.waitForResponse((res) => res.url().endsWith('/value') && res.request().method() === 'POST');
    await pages.fill('412');
    await pages.press('Tab');
    expect((await saved).status()).toBe(200);
    const shelf = page.getByLabel('Shelf of Dune');
    const savedShelf = page.waitForResponse((res) => res.url().endsWith('/value'));
    await shelf.selectOption({ label: 'Reading' });
    await savedShelf;
    const dune = (await server.db('items').where({ title: 'Dune' }).first()) as { id: string; values: Record<string, unknown> };
    expect(Object.values(dune.values)).toContain(412);
    await accessible(page);
    await shoot(page, 'table');
    return dune;
  }

  /** Removes the OAuth app and the webhook subscription on the Connections page. */
  async function removeAppAndWebhook(page: Page, receiverUrl: string, subscriptionId: string): Promise<void> {
    await page.goto(`${server.baseUrl}/settings/connections`);
    expect(await page.textContent('main')).toContain('Travel Agent');
    expect(await page.textContent('main')).toContain(receiverUrl);
    await accessible(page);
    await shoot(page, 'connections');
    await clickTo(page, 'form[action="/settings/connections/apps/revoke"] button', '**/settings/connections?done=app-revoked');
    expect(await page.textContent('main')).not.toContain('Travel Agent');
    await clickTo(page, 'form[action="/settings/connections/subscriptions/remove"] button', '**/settings/connections?done=subscription-removed');
    expect(await page.textContent('main')).not.toContain(receiverUrl);
    expect(await server.db('event_subscriptions').where({ id: subscriptionId }).first()).toBeUndefined();
  }

  it(
    'signs in, makes a list, edits it in the table and on the board, finds, deletes and restores an item, and removes an app and a webhook',
    async () => {
      const page = await chromium.context.newPage();
      // A refused script, style or fetch (CSP) or a missing file shows as a console error.
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(`${new URL(page.url()).pathname}: ${message.text()}`);
      });
      page.on('pageerror', (error) => consoleErrors.push(`${new URL(page.url()).pathname}: ${error.message}`));
      // An app connected by OAuth and a webhook, both to be removed at the end.
      const client = await registerClient(server.baseUrl, 'Travel Agent');
      const authorized = await authorizeInBrowser(new HttpBrowser(server.baseUrl), authorizeUrl(server.baseUrl, client, pkce().challenge), {
        email: ada.email,
        password: PASSWORD,
      });
      codeFrom(authorized.location);
      const secret = mintSecret();
      const sub = await ada.sdk.POST('/event-subscriptions', { body: { url: receiver.url, secret } });
      expect(sub.error).toBeUndefined();

      // Sign in.
      await page.goto(`${server.baseUrl}/`);
      expect(new URL(page.url()).pathname).toBe('/signin');
      await accessible(page);
      await shoot(page, 'sign-in');
      await page.fill('#email', ada.email);
      await page.fill('#password', PASSWORD);
      await clickTo(page, 'button[type=submit]', '**/lists');
      expect(await page.textContent('h1')).toBe('Lists');

      // Keyboard: the first Tab reaches the skip link.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the content');

      const listPath = await makeReadingList(page);

      const dune = await editInTable(page);

      // Move an item on the board: Dune from Reading to Done.
      await page.goto(`${server.baseUrl}${listPath}?view=board&groupBy=${await propertyId('Shelf')}`);
      expect(await page.locator('.column[data-value] h2').allTextContents()).toEqual(['To read 0', 'Reading 1', 'Done 0', 'No value 2']);
      const moved = page.waitForResponse((res) => res.url().endsWith(`/items/${dune.id}/value`));
      await page.getByLabel('Move Dune to').selectOption({ label: 'Done' });
      await moved;
      await page.waitForFunction(() => document.querySelector('.column[data-value] h2')?.parentElement?.parentElement?.textContent?.includes('Done 1'));
      await accessible(page);
      await shoot(page, 'board');

      // Complete it: Dune's item page, then the Tasks list for a task; here, a task added by quick add.
      await page.goto(`${server.baseUrl}/lists`);
      await page.fill('#quick-title', 'Return Dune to the library friday');
      await clickTo(page, 'form[action="/quick-add"] button[type=submit]', /\/lists\?added=[0-9a-f-]{36}$/);
      const tasksPath = await page.locator('ul.lists a').first().getAttribute('href');
      await page.goto(`${server.baseUrl}${tasksPath}?view=list`);
      expect(await page.textContent('ul.tasks')).toContain('Return Dune to the library');
      await accessible(page);
      await shoot(page, 'tasks');
      await clickTo(page, 'button[aria-label="Complete Return Dune to the library"]', /view=list$/);
      expect(await page.textContent('main')).not.toContain('Return Dune to the library');
      await clickTo(page, 'a:text("Show completed")', /status=completed/);
      expect(await page.locator('ul.tasks a.done').textContent()).toBe('Return Dune to the library');
      const task = (await server.db('items').where({ title: 'Return Dune to the library' }).first()) as { id: string; task_status: string; due_at: Date };
      expect(task.task_status).toBe('completed');
      expect(task.due_at).not.toBeNull();

      // Search for it: results come as the person types.
      await server.pump!.drain();
      await page.goto(`${server.baseUrl}/search`);
      await page.fill('#q', 'library');
      await page.waitForSelector('#results a[href^="/artifacts/"]');
      expect(await page.textContent('#results')).toContain('Return Dune to the library');
      await accessible(page);
      await shoot(page, 'search');

      // Open it and delete it; it is in the trash; restore it.
      await clickTo(page, '#results a[href^="/artifacts/"]', `**/artifacts/${task.id}`);
      await accessible(page);
      await shoot(page, 'item');
      await page.goto(`${server.baseUrl}${tasksPath}?view=table`);
      await clickTo(page, 'button[aria-label="Delete Return Dune to the library"]', /done=deleted$/);
      expect(await page.textContent('[role=status]')).toContain('Moved to the trash');
      await page.goto(`${server.baseUrl}/trash`);
      expect(await page.textContent('main')).toContain('Return Dune to the library');
      await accessible(page);
      await shoot(page, 'trash');
      await clickTo(page, 'button[aria-label="Restore Return Dune to the library"]', '**/trash?restored=item');
      expect(await page.textContent('[role=status]')).toContain('back on its list');
      expect(await server.db('items').where({ id: task.id }).whereNull('deleted_at').first()).toBeTruthy();

      await removeAppAndWebhook(page, receiver.url, sub.data!.id);
      expect(consoleErrors).toEqual([]);
      await page.close();
    },
    SETUP_MS,
  );

  it(
    'passes axe on every other page, in the dark theme too, and fits a phone',
    async () => {
      // A list with properties, in table view: its table is wider than a phone, and scrolls inside its own box.
      const books = await ada.sdk.POST('/lists', {
        body: {
          name: 'Books',
          properties: [
            { name: 'Author', type: 'text' },
            { name: 'Pages', type: 'number' },
            { name: 'Shelf', type: 'select', options: ['To read', 'Reading', 'Done'] },
          ],
        },
      });
      expect(books.error).toBeUndefined();
      const made = await ada.sdk.POST('/items', {
        body: { listId: books.data!.id, items: [{ title: 'The Left Hand of Darkness', values: { Author: 'Ursula K. Le Guin', Pages: 304, Shelf: 'Done' } }] },
      });
      expect(made.error).toBeUndefined();
      const phone = await chromium.context.newPage();
      await phone.setViewportSize({ width: 360, height: 740 });
      await signedIn(phone);
      for (const scheme of ['light', 'dark'] as const) {
        await phone.emulateMedia({ colorScheme: scheme });
        for (const where of [
          `/lists/${books.data!.id}?view=table`,
          `/lists/${books.data!.id}?view=board`,
          '/lists',
          '/search',
          '/trash',
          '/activity',
          '/conversation',
          '/settings',
          '/settings/account',
          '/settings/connections',
          '/settings/automations',
          '/settings/memory',
          '/settings/data',
        ]) {
          await phone.goto(`${server.baseUrl}${where}`);
          expect(new URL(phone.url()).pathname + new URL(phone.url()).search).toBe(where);
          await accessible(phone);
          expect([where, await phone.evaluate(() => document.documentElement.scrollWidth)]).toEqual([where, 360]);
        }
        // What does not fit scrolls inside its own box.
        await phone.goto(`${server.baseUrl}/lists/${books.data!.id}?view=table`);
        expect(await phone.$eval('.table-wrap', (box) => box.scrollWidth > box.clientWidth)).toBe(true);
      }
      await phone.goto(`${server.baseUrl}/lists`);
      await shoot(phone, 'lists-phone-dark');
      await phone.close();
    },
    SETUP_MS,
  );

  async function propertyId(name: string): Promise<string> {
    const list = (await server.db('lists').where({ name: 'Reading list' }).first()) as { properties: Array<{ id: string; name: string }> };
    return list.properties.find((p) => p.name === name)!.id;
  }

  it(
    'signs up and lands signed in, and quick add names the task it made and when it is due',
    async () => {
      // A browser nobody is signed in on.
      await chromium.context.clearCookies();
      const page = await chromium.context.newPage();
      await page.goto(`${server.baseUrl}/signup`);
      const email = `grace-${Date.now()}@example.com`;
      await page.fill('#name', 'Grace');
      await page.fill('#email', email);
      await page.fill('#password', PASSWORD);
      await page.fill('#timezone', 'Europe/Paris');
      await clickTo(page, 'button[type=submit]', '**/lists');
      expect(await page.textContent('h1')).toBe('Lists');
      expect(await page.textContent('nav.top')).toContain(email);

      await page.fill('#quick-title', 'Water the plants tomorrow 6pm');
      await clickTo(page, 'form[action="/quick-add"] button[type=submit]', /\/lists\?added=[0-9a-f-]{36}$/);
      const task = (await server.db('items').where({ title: 'Water the plants' }).first()) as { id: string; due_at: Date };
      const notice = page.locator('p.notice[role=status]');
      expect(await notice.textContent()).toBe(`Added Water the plants to Tasks, due ${formatTime(task.due_at, 'Europe/Paris')}.`);
      expect(await notice.locator('a').getAttribute('href')).toBe(`/artifacts/${task.id}`);
      await accessible(page);
      await clickTo(page, 'p.notice a', `**/artifacts/${task.id}`);
      expect(await page.textContent('h1')).toBe('Water the plants');
      await page.close();
    },
    SETUP_MS,
  );
});
