/**
 * The worker side of the parse pool (parse-pool.ts): parses a body and answers its outline,
 * a compact string that crosses threads cheaply, and the handles of its blocks, space-separated;
 * the calling thread rebuilds the parse from the outline (fromOutline) in milliseconds and takes
 * the handles as they are: naming the blocks of a long body is too slow for the thread every
 * request waits for (bench/README.md).
 */
import { parseBody } from './blocks.js';
import { handlesOf } from './handles.js';
import { toOutline } from './outline.js';

export interface ParseAnswer {
  outline: string;
  handles: string;
}

export default function parseToOutline(text: string): ParseAnswer {
  const parsed = parseBody(text);
  return { outline: toOutline(parsed), handles: handlesOf(parsed).join(' ') };
}
