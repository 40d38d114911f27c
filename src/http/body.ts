/** Reading a JSON request body: size limit, content type and syntax, each a clear 400. */
import getRawBody from 'raw-body';
import type { Context } from 'koa';
import { invalid } from '../core/errors.js';

/** The parsed JSON body, or undefined when the request has none. */
export async function readJsonBody(ctx: Context, limitBytes: number): Promise<unknown> {
  const length = ctx.request.length;
  const chunked = ctx.get('transfer-encoding') !== '';
  if (!length && !chunked) return undefined;
  if (length && length > limitBytes) throw tooLarge(length, limitBytes);
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, { limit: limitBytes, ...(length ? { length } : {}) });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw tooLarge(length ?? limitBytes + 1, limitBytes);
    throw invalid(`The request body could not be read: ${(err as Error).message}.`);
  }
  let text: string;
  try {
    // Strict: invalid UTF-8 is refused, not stored as U+FFFD in place of what the caller meant.
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw invalid('The request body is not valid UTF-8; send JSON encoded as UTF-8.');
  }
  if (text.trim() === '') return undefined;
  const type = ctx.request.type;
  if (type && type !== 'application/json' && !type.endsWith('+json')) {
    throw invalid(`Content-Type '${type}' is not accepted; send the body as application/json.`);
  }
  const depth = nestingDepth(text);
  if (depth > MAX_JSON_DEPTH) throw invalid(`The request body nests arrays and objects ${depth} deep; at most ${MAX_JSON_DEPTH} levels are read.`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalid(`The request body is not valid JSON: ${(err as Error).message}.`);
  }
}

/** The deepest nesting of arrays and objects a request body may have (no operation needs more than a few). */
export const MAX_JSON_DEPTH = 64;

/** How deep arrays and objects nest in JSON text, counted outside strings, without parsing it. */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

function tooLarge(bytes: number, limit: number): Error {
  return invalid(`The request body is ${bytes} bytes; the limit is ${limit} bytes.`);
}
