/** Reading the urlencoded body of a web form, with a small size limit. */
import getRawBody from 'raw-body';
import type { Context } from 'koa';

const FORM_LIMIT_BYTES = 16 * 1024;
/** The item page's form carries a whole body (Markdown, up to a megabyte as the API allows). */
const LARGE_FORM_LIMIT_BYTES = 1100 * 1024;

/** How much a form may send: `small` for every form but the item editor. */
export type FormLimit = 'small' | 'large';

/** Every submitted field (repeated ones too); empty for another content type or an oversized body. */
export async function readFormParams(ctx: Context, limit: FormLimit = 'small'): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) return new URLSearchParams();
  try {
    const text = await getRawBody(ctx.req, { limit: limit === 'large' ? LARGE_FORM_LIMIT_BYTES : FORM_LIMIT_BYTES, encoding: 'utf8' });
    return new URLSearchParams(text);
  } catch {
    return new URLSearchParams();
  }
}

/**
 * A same-site path to go to after signing in, or the fallback: only absolute paths on this
 * site ("/..."), never "//host", "/\host" or a full URL, so `next` cannot redirect elsewhere.
 */
export function safeNext(next: unknown, fallback: string): string {
  if (typeof next !== 'string' || next.length > 2000) return fallback;
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\\]/.test(next)) return fallback;
  try {
    const url = new URL(next, 'http://listkeeper.invalid');
    if (url.host !== 'listkeeper.invalid') return fallback;
    // The normalised path, not the raw one: '/.//evil.example', '/a/..//evil.example' and
    // '/%2e//evil.example' all normalise to '//evil.example', which a browser reads as another host.
    if (url.pathname.startsWith('//') || url.pathname.startsWith('/\\')) return fallback;
    return `${url.pathname}${url.search}`;
  } catch {
    return fallback;
  }
}
