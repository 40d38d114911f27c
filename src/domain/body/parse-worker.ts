/**
 * The worker side of the parse pool (parse-pool.ts): parses a body and answers its outline,
 * a compact string that crosses threads cheaply; the calling thread rebuilds the parse
 * from it (fromOutline) in milliseconds.
 */
import { parseBody } from './blocks.js';
import { toOutline } from './outline.js';

export default function parseToOutline(text: string): string {
  return toOutline(parseBody(text));
}
