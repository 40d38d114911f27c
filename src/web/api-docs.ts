/**
 * /docs: the API reference, rendered in the browser by Swagger UI from the served OpenAPI
 * document. The renderer's files come from the swagger-ui-dist package and are served by the
 * app itself (no CDN), under a CSP that allows scripts from this origin only.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};
const assetDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>listkeeper API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" href="/icons/icon-192.png" type="image/png">
</head>
<body>
<noscript><p>The reference needs JavaScript. The same content is the OpenAPI document at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript>
<main id="reference" aria-label="API reference"></main>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// Read-only: "Try it out" would send real requests with the reader's token from this page.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#reference', deepLinking: true, supportedSubmitMethods: [], defaultModelsExpandDepth: 0 });\n`;

// Swagger UI sets style attributes and loads its icons as data: URLs.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

const cache = new Map<string, Buffer>();

/** The reference page and its assets. */
export function apiDocs(): Middleware {
  const router = new Router();
  router.get('/docs', function showApiReference(ctx: Context) {
    ctx.set('Content-Security-Policy', CSP);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get('/docs/init.js', function serveReferenceInit(ctx: Context) {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/assets/:file', async function serveReferenceAsset(ctx: Context) {
    const file = ctx.params.file ?? '';
    const type = ASSETS[file];
    if (!type) return;
    let body = cache.get(file);
    if (!body) {
      body = await readFile(path.join(assetDir, file));
      cache.set(file, body);
    }
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = body;
  });
  return router.routes() as Middleware;
}
