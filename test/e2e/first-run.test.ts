/**
 * The first minutes of a new user: the built server started with no HOST or BASE_URL prints
 * one address, and a browser signs up and in at exactly that address; the API reference at
 * /docs renders there from the served OpenAPI document (its screenshot goes under
 * .tmp/screenshots, or into docs/screenshots/ with `make screenshots`).
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv } from '../support/env.js';
import { freePort } from '../support/net.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';

const root = path.resolve(import.meta.dirname ?? '.', '../..');
const main = path.join(root, 'dist/src/main.js');
const SCREENSHOTS = path.resolve(root, process.env.SCREENSHOTS_DIR ?? '.tmp/screenshots');

describe('first run', () => {
  let dataDir: string;
  let server: ChildProcess;
  let browser: TestBrowser;
  let output = '';
  let printed: string;
  beforeAll(async () => {
    if (!existsSync(main)) throw new Error('dist/ is missing: run `make build` (make test does) before this suite.');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'lk-first-run-'));
    await chmod(dataDir, 0o755);
    const env = childEnv({ LISTKEEPER_DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDINGS: 'none', LOG_FORMAT: 'json' });
    server = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    for (let i = 0; i < 300 && !/listening on (\S+)/.test(output); i++) {
      if (server.exitCode !== null) throw new Error(`server exited: ${output}`);
      await sleep(100);
    }
    printed = /listkeeper is listening on (http:\/\/[^\s"]+)/.exec(output)?.[1] ?? '';
    browser = await launchBrowser();
  }, 60000);
  afterAll(async () => {
    await browser?.close();
    server?.kill('SIGTERM');
    await new Promise((resolve) => server?.once('exit', resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints the address it listens on, and the next step', () => {
    expect(printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(output).toContain(`Next: open ${printed}/signup`);
  });

  it('signs up and in at exactly the printed address', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${printed}/signup`);
    await page.fill('#name', 'Ada');
    await page.fill('#email', 'ada@example.com');
    await page.fill('#password', 'correct horse battery');
    // Sign-up lands the person signed in, on their lists.
    await Promise.all([page.waitForURL(/\/lists$/), page.click('button[type=submit]')]);
    expect(new URL(page.url()).origin).toBe(printed);
    await page.goto(`${printed}/signout`).catch(() => undefined);
    await page.context().clearCookies();
    await page.goto(`${printed}/signin`);
    await page.fill('#email', 'ada@example.com');
    await page.fill('#password', 'correct horse battery');
    await Promise.all([page.waitForURL(/\/lists$/), page.click('button[type=submit]')]);
    expect(await page.content()).not.toContain('This form expired or was sent from another site');
    await page.close();
  }, 60000);

  it('renders the API reference at /docs from the served document, with scripts from its own origin only', async () => {
    const page = await browser.context.newPage();
    const outside: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(printed) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    const res = await page.goto(`${printed}/docs`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    await page.waitForSelector('.opblock-summary-path', { timeout: 20000 });
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'api-reference.png') });
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.textContent?.trim()));
    expect(paths).toContain('/items');
    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  }, 60000);
});
