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
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: limitBytes, encoding: 'utf8', ...(length ? { length } : {}) });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw tooLarge(length ?? limitBytes + 1, limitBytes);
    throw invalid(`The request body could not be read: ${(err as Error).message}.`);
  }
  if (text.trim() === '') return undefined;
  const type = ctx.request.type;
  if (type && type !== 'application/json' && !type.endsWith('+json')) {
    throw invalid(`Content-Type '${type}' is not accepted; send the body as application/json.`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalid(`The request body is not valid JSON: ${(err as Error).message}.`);
  }
}

function tooLarge(bytes: number, limit: number): Error {
  return invalid(`The request body is ${bytes} bytes; the limit is ${limit} bytes.`);
}
