/**
 * Server-rendered HTML for the web pages: one escaping template tag and one layout. Plain
 * forms that work without JavaScript, readable on a phone (viewport meta, fluid width).
 */
import type { Context } from 'koa';
import { ASSET_PATHS } from './assets.js';

/** Markup that is already safe; everything else interpolated into `html` is escaped. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Template tag: interpolated values are escaped unless they are `Html` (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Html(out);
}

/** What a page may set around its body. */
export interface PageOptions {
  /** The signed-in bar (empty when signed out). */
  nav?: Html;
  /** Wide pages (tables, the board) use the whole screen. */
  wide?: boolean;
}

/**
 * The whole page around `body`: the stylesheets (a light and a dark theme), htmx and the
 * app's own small script, both served by the app (src/web/assets.ts) and only progressive
 * enhancement: every page reads and every form posts with scripts off.
 */
export function page(title: string, body: Html, options: PageOptions = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<meta name="htmx-config" content='{"allowEval":false,"allowScriptTags":false,"includeIndicatorStyles":false,"selfRequestsOnly":true,"historyCacheSize":0}'>
<title>${title} · listkeeper</title>
<link rel="icon" href="/icons/icon-192.png" type="image/png">
<link rel="apple-touch-icon" href="/icons/apple-touch-icon.png">
<link rel="manifest" href="/manifest.webmanifest">
<meta name="theme-color" content="#0b5ed7">
<link rel="stylesheet" href="${ASSET_PATHS.css}">
<link rel="stylesheet" href="${ASSET_PATHS.views}">
<script src="${ASSET_PATHS.htmx}" defer></script>
<script src="${ASSET_PATHS.app}" defer></script>
</head>
<body>
<a class="skip" href="#content">Skip to the content</a>
${options.nav ? html`<header>${options.nav}</header>` : ''}
<main id="content" tabindex="-1"${options.wide ? new Html(' class="wide"') : ''}>
<h1>${title}</h1>
${body}
</main>
<footer><a href="/docs">API reference</a></footer>
</body>
</html>
`.value;
}

/**
 * The headers every answer of the web pages carries, a whole page, an htmx fragment, a
 * download or a redirect: no caching (pages show keys and CSRF tokens), no framing (the
 * consent button must not be clickjacked), no type sniffing, no referrer, and scripts only
 * from this origin (htmx and src/web/static/app.js; no inline script, no eval), as are the
 * manifest and the service worker.
 */
export function setPageHeaders(ctx: Context, fileOrigins: readonly string[] = []): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', contentSecurityPolicy(fileOrigins));
}

/** Sends a page with the headers of setPageHeaders. */
export function sendPage(ctx: Context, status: number, body: string, fileOrigins: readonly string[] = []): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  setPageHeaders(ctx, fileOrigins);
  ctx.body = body;
}

/**
 * Scripts, styles and fetches from this origin; images and uploads also from the origins that
 * serve signed file links (the service's public address, when the pages are on another).
 */
function contentSecurityPolicy(fileOrigins: readonly string[]): string {
  const files = fileOrigins.length ? ` ${fileOrigins.join(' ')}` : '';
  return `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:${files}; connect-src 'self'${files}; manifest-src 'self'; worker-src 'self'; frame-ancestors 'none'; base-uri 'none'`;
}
