/**
 * The pages' static files, served by the app itself (no CDN): the two stylesheets and the small
 * script of src/web/static/, and htmx from its npm package; and what makes the pages an
 * installable app: the manifest, its icons (drawn by tools/make-icons.mjs) and the service
 * worker, at fixed addresses (a service worker's address is its identity, and its scope is
 * the folder it is served from). Read once at start and kept in memory (a few tens of kilobytes).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';

const require = createRequire(import.meta.url);

interface Asset {
  type: string;
  body: Buffer;
}

/** src/web/static/ of the listkeeper package: beside this file from source, under the package root when built (dist/src/web/). */
function staticDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    for (const candidate of [path.join(dir, 'static'), path.join(dir, 'src', 'web', 'static')])
      if (existsSync(path.join(candidate, 'app.css'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('src/web/static/ is missing from the listkeeper package');
    dir = parent;
  }
}

/** An asset under an address named by its content, so a browser may keep it for a year. */
function named(stem: string, extension: string, type: string, file: string): [string, Asset] {
  const body = readFileSync(file);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return [`/assets/${stem}.${hash}.${extension}`, { type, body }];
}

const dir = staticDir();
const css = named('app', 'css', 'text/css; charset=utf-8', path.join(dir, 'app.css'));
const views = named('views', 'css', 'text/css; charset=utf-8', path.join(dir, 'views.css'));
const app = named('app', 'js', 'text/javascript; charset=utf-8', path.join(dir, 'app.js'));
const htmx = named('htmx', 'min.js', 'text/javascript; charset=utf-8', require.resolve('htmx.org/dist/htmx.min.js'));
const ASSETS = new Map([css, views, app, htmx]);

/** Where the layout links them. */
export const ASSET_PATHS = { css: css[0], views: views[0], app: app[0], htmx: htmx[0] } as const;

/** The web app manifest: installed, the app opens on the lists in a window of its own. */
const MANIFEST = {
  name: 'listkeeper',
  short_name: 'listkeeper',
  description: 'Your lists and tasks.',
  id: '/lists',
  start_url: '/lists',
  scope: '/',
  display: 'standalone',
  background_color: '#f5f5f7',
  theme_color: '#0b5ed7',
  icons: [
    { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
    { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
    { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  ],
};

/** Files at fixed addresses, revalidated daily (the service worker: at every visit, as browsers check it anyway). */
const FIXED = new Map<string, Asset & { cache: string }>([
  ['/manifest.webmanifest', { type: 'application/manifest+json', body: Buffer.from(JSON.stringify(MANIFEST)), cache: 'public, max-age=86400' }],
  ['/sw.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(path.join(dir, 'sw.js')), cache: 'no-cache' }],
  // Asked for by every browser on a page that names no icon (the API reference, a JSON answer); a PNG, as browsers read it.
  ['/favicon.ico', { type: 'image/png', body: readFileSync(path.join(dir, 'icons', 'icon-192.png')), cache: 'public, max-age=86400' }],
  ...['icon-192.png', 'icon-512.png', 'maskable-512.png', 'apple-touch-icon.png'].map((name): [string, Asset & { cache: string }] => [
    `/icons/${name}`,
    { type: 'image/png', body: readFileSync(path.join(dir, 'icons', name)), cache: 'public, max-age=86400' },
  ]),
]);

/** GET /assets/…: the four files, or nothing (the app's 404); the manifest, icons and service worker at their addresses. */
export function assetRoutes(): Middleware {
  const router = new Router();
  for (const [route, asset] of FIXED)
    router.get(route, function serveAppFile(ctx: Context) {
      ctx.type = asset.type;
      ctx.set('Cache-Control', asset.cache);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = asset.body;
    });
  router.get('/assets/:file', function serveAsset(ctx: Context) {
    const asset = ASSETS.get(ctx.path);
    if (!asset) return;
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = asset.body;
  });
  return router.routes() as Middleware;
}
