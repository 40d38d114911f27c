/**
 * The pages' static files, served by the app itself (no CDN): the stylesheet and the small
 * script of src/web/static/, and htmx from its npm package. Read once at start and kept in
 * memory (a few tens of kilobytes).
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
const app = named('app', 'js', 'text/javascript; charset=utf-8', path.join(dir, 'app.js'));
const htmx = named('htmx', 'min.js', 'text/javascript; charset=utf-8', require.resolve('htmx.org/dist/htmx.min.js'));
const ASSETS = new Map([css, app, htmx]);

/** Where the layout links them. */
export const ASSET_PATHS = { css: css[0], app: app[0], htmx: htmx[0] } as const;

/** GET /assets/…: the three files, or nothing (the app's 404). */
export function assetRoutes(): Middleware {
  const router = new Router();
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
