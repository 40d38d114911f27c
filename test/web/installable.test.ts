/**
 * The web app is installable: Chromium (playwright-core, driving the distribution's chromium)
 * finds the manifest, its icons and the service worker, and its own installability check
 * (the DevTools protocol's Page.getInstallabilityErrors) reports no error. The service worker
 * serves nothing offline: it has no fetch handler.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';

describe('installable web app', () => {
  const { server } = useTestServer({ accounts: [] });
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('passes Chromium’s installability check: manifest, icons, service worker', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.baseUrl}/signin`);
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    expect(scope).toBe(`${server.baseUrl}/`);
    const cdp = await browser.context.newCDPSession(page);
    const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
    expect(installabilityErrors).toEqual([]);
    const manifest = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[]; data: string };
    expect(manifest.errors).toEqual([]);
    expect(JSON.parse(manifest.data)).toMatchObject({ name: 'listkeeper', display: 'standalone', start_url: '/lists' });
  });

  it('answers /favicon.ico with the icon, and the API reference names it too', async () => {
    const res = await fetch(`${server.baseUrl}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(1, 4)
        .toString('ascii'),
    ).toBe('PNG');
    expect(await (await fetch(`${server.baseUrl}/docs`)).text()).toContain('<link rel="icon" href="/icons/icon-192.png" type="image/png">');
  });

  it('serves every icon the manifest names as a PNG of its size', async () => {
    const manifest = (await (await fetch(`${server.baseUrl}/manifest.webmanifest`)).json()) as { icons: { src: string; sizes: string }[] };
    for (const icon of manifest.icons) {
      const res = await fetch(new URL(icon.src, server.baseUrl));
      const png = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(icon.sizes);
    }
  });

  it('has a service worker for push and notification clicks only', async () => {
    const sw = await (await fetch(`${server.baseUrl}/sw.js`)).text();
    expect(sw).toContain("addEventListener('push'");
    expect(sw).toContain("addEventListener('notificationclick'");
    expect(sw).not.toContain("addEventListener('fetch'");
  });
});
