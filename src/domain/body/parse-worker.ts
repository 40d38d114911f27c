/**
 * The worker side of the parse pool (parse-pool.ts): parses a body and answers its outline,
 * a compact string that crosses threads cheaply, and the handles of its blocks, space-separated;
 * the calling thread rebuilds the parse from the outline (fromOutline) in milliseconds and takes
 * the handles as they are: naming the blocks of a long body is too slow for the thread every
 * request waits for (bench/README.md).
 */
import { execFile } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { parseBody } from './blocks.js';
import { handlesOf } from './handles.js';
import { toOutline } from './outline.js';

/**
 * On Linux the worker's thread runs under SCHED_IDLE: it gets a core only when no other thread
 * wants one. At nice 19 (piscina's niceIncrement, which this leaves in place elsewhere) the
 * parse still took a share of the cores from the requests (bench/README.md has the runs, and
 * what SCHED_IDLE changed). Node has no call for a thread's scheduling policy: `chrt`
 * (util-linux) sets it, by the thread's id. Without chrt or /proc the worker stays at nice 19.
 * Imported in a main thread (no caller does), the module leaves that thread as it is.
 */
function runOnlyWhenIdle(): void {
  if (process.platform !== 'linux' || isMainThread) return;
  let thread: string | undefined;
  try {
    thread = readlinkSync('/proc/thread-self').split('/').pop();
  } catch {
    return;
  }
  if (thread) execFile('chrt', ['--idle', '--pid', '0', thread], () => undefined);
}

runOnlyWhenIdle();

export interface ParseAnswer {
  outline: string;
  handles: string;
}

export default function parseToOutline(text: string): ParseAnswer {
  const parsed = parseBody(text);
  return { outline: toOutline(parsed), handles: handlesOf(parsed).join(' ') };
}
