/**
 * Server-rendered HTML for the web pages: one escaping template tag and one layout. No
 * JavaScript anywhere; plain forms, readable on a phone (viewport meta, fluid width).
 */
import type { Context } from 'koa';

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

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;background:#f5f5f7}
main{max-width:34rem;margin:0 auto;padding:1.25rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;margin:0 0 1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email],input[type=password],input[type=text]{width:100%;padding:.65rem;font-size:1rem;border:1px solid #c7c7cc;border-radius:8px}
button{font-size:1rem;padding:.65rem 1.1rem;border-radius:8px;border:1px solid #0a58ca;background:#0b5ed7;color:#fff;cursor:pointer;margin:.75rem .5rem 0 0}
button.secondary{background:#fff;color:#0b5ed7}
button.danger{background:#fff;color:#b02a37;border-color:#b02a37}
.error{background:#fdecea;color:#8a1c1c;padding:.75rem;border-radius:8px}
.notice{background:#e8f4ea;color:#1e5b2a;padding:.75rem;border-radius:8px}
code,.key{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.key{display:block;background:#f0f0f3;padding:.75rem;border-radius:8px;user-select:all}
.muted{color:#6e6e73;font-size:.9rem}
ul.apps{list-style:none;padding:0;margin:0}
ul.apps li{border-top:1px solid #e5e5ea;padding:.75rem 0}
ul.apps li:first-child{border-top:0}
nav{display:flex;justify-content:space-between;align-items:center;gap:.5rem;flex-wrap:wrap}
nav form button{margin:0}
footer{max-width:40rem;margin:0 auto 2rem;padding:0 1rem;font-size:.85rem}
`;

/** The whole page around `body`. */
export function page(title: string, body: Html, options: { nav?: Html } = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · listkeeper</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<main>
${options.nav ?? ''}
<h1>${title}</h1>
${body}
</main>
<footer><a href="/docs">API reference</a></footer>
</body>
</html>
`.value;
}

/**
 * Sends a page with the headers every web page carries: no caching (pages show keys and
 * CSRF tokens), no framing (the consent button must not be clickjacked), no scripts.
 */
export function sendPage(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'");
  ctx.body = body;
}
