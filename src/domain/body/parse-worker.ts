/**
 * The worker side of the parse pool (parse-pool.ts): parses a body and answers its outline,
 * a compact string that crosses threads cheaply, and the handles of its blocks, space-separated;
 * the calling thread rebuilds the parse from the outline (fromOutline) in milliseconds and takes
 * the handles as they are: naming 28,000 blocks of a 1 MB body took ~40 ms, on the thread
 * every request waits for.
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
 * parse still took a share of the cores from the requests; back to back, get_item's p99 during a
 * first parse went from 45 to 40 ms (median of six runs each) and the parse took an eighth
 * longer (bench/README.md). Node has no call for a thread's scheduling policy: `chrt`
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
