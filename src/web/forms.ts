/** Reading the urlencoded body of a web form, with a small size limit. */
import getRawBody from 'raw-body';
import type { Context } from 'koa';

const FORM_LIMIT_BYTES = 16 * 1024;

/** The submitted fields; an empty object for another content type or an oversized body. */
export async function readForm(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) return {};
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: FORM_LIMIT_BYTES, encoding: 'utf8' });
  } catch {
    return {};
  }
  const fields: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(text)) if (!(key in fields)) fields[key] = value;
  return fields;
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
