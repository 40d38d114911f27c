/**
 * Headless Chromium for tests that drive the real web pages: playwright-core with the
 * distribution's chromium (`make browser` installs it). Each launch gets a fresh profile
 * folder, removed again on close.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium; `options` go to the browser context (viewport, javaScriptEnabled, ...). */
export async function launchBrowser(
  options: { viewport?: { width: number; height: number }; javaScriptEnabled?: boolean; isMobile?: boolean } = {},
): Promise<TestBrowser> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'listkeeper-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 60_000,
    ...options,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
