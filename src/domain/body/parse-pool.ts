/**
 * Parsing a long body off the event loop: micromark costs seconds per megabyte, and in the
 * request's thread every other request of the process would wait that long. A piscina pool
 * of one worker thread parses and answers the outline and the blocks' handles; this thread
 * rebuilds the parse from the outline and keeps the handles with it. The worker runs at the
 * lowest CPU priority (nice 19): on a machine whose cores the requests keep busy, a parse on
 * an equal footing took a core from them, and their latency with it (bench/README.md).
 * Piscina is loaded and the worker started on the first long body, and the worker ends after
 * a minute idle: an idle server holds neither. A worker that fails (it could not start, or
 * died) is not the body's fault: the body is then parsed here, as before the pool.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import type { ParsedBody } from './blocks.js';
import { parseBody } from './blocks.js';
import { fromOutline, toOutline } from './outline.js';
import type { ParseAnswer } from './parse-worker.js';

export interface ParsePool {
  /** The parse of `text` (with its handles) and its outline, made in a worker thread (in this one when the worker fails). */
  parse(text: string): Promise<{ parsed: ParsedBody; outline: string }>;
  close(): Promise<void>;
}

/**
 * The worker's file: the compiled .js next to this file, or, when running from the sources
 * (tsx, the tests), the .ts file, loaded through tsx in the worker.
 */
function workerFile(): { filename: string; execArgv: string[] } {
  const compiled = fileURLToPath(new URL('./parse-worker.js', import.meta.url));
  if (existsSync(compiled)) return { filename: compiled, execArgv: [] };
  return { filename: fileURLToPath(new URL('./parse-worker.ts', import.meta.url)), execArgv: ['--import', 'tsx'] };
}

/** A pool of one worker; `filename` replaces the worker (tests use one that fails). */
export function createParsePool(options: { filename?: string; onWorkerFailure?: (err: unknown) => void } = {}): ParsePool {
  const worker = options.filename ? { filename: options.filename, execArgv: [] } : workerFile();
  let pool: Promise<Piscina<string, ParseAnswer>> | undefined;
  const started = () =>
    (pool ??= import('piscina').then(
      ({ Piscina }) =>
        new Piscina<string, ParseAnswer>({
          filename: worker.filename,
          execArgv: worker.execArgv,
          minThreads: 0,
          maxThreads: 1,
          idleTimeout: 60_000,
          niceIncrement: 19,
        }),
    ));
  return {
    async parse(text) {
      try {
        const { outline, handles } = await (await started()).run(text);
        const parsed = fromOutline(text, outline);
        // An outline that does not fit the text (it cannot, short of a bug) is not trusted.
        if (!parsed) throw new Error('the worker answered an outline that does not fit the body');
        // Handles are made from the blocks alone, so the worker's are this parse's; a count that does not fit is left to handlesOf.
        const named = handles === '' ? [] : handles.split(' ');
        if (named.length === parsed.blockCount) parsed.handles = named;
        return { parsed, outline };
      } catch (err) {
        (options.onWorkerFailure ?? warn)(err);
        const parsed = parseBody(text);
        return { parsed, outline: toOutline(parsed) };
      }
    },
    close: async () => (pool ? (await pool).destroy() : undefined),
  };
}

function warn(err: unknown): void {
  process.emitWarning(`parsing a body in the worker failed, parsed in the request's thread instead: ${err instanceof Error ? err.message : String(err)}`);
}

let shared: ParsePool | undefined;

/** The process's pool, started on first use. */
export function parsePool(): ParsePool {
  shared ??= createParsePool();
  return shared;
}
