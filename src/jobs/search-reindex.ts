/** The background rebuild of the search index (src/search/reindex.ts does the work). */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { searchReindexItems } from '../core/metrics.js';
import type { Embedder, SearchIndex } from '../core/search-index.js';
import { continueReindex, planReindex, rebuildStatus, type IndexIdentity } from '../search/reindex.js';

/** How often a process checks on a rebuild another process is doing (to take it over, or to let the old model go). */
const WATCH_SECONDS = 30;

export interface BackgroundReindexOptions {
  /** Builds the embedder an earlier index was built with (Search.embedderOf); null when it cannot be had here. */
  embedderOf?: (identity: IndexIdentity) => Embedder | null;
  /** Items per batch of the rebuild. */
  batchSize?: number;
}

export interface BackgroundReindex {
  stop(): Promise<void>;
  /** Settles when the attempt under way (planning, holding the previous model, rebuilding) is over. */
  settled(): Promise<void>;
}

/**
 * The server's part: plans a rebuild at start when needed (see planReindex) and works through any unfinished one in
 * the background, beside the outbox pump, so fresh writes are indexed meanwhile; a failure is retried with backoff.
 * While a rebuild after a model change is unfinished (by this process or another), the index is given the previous
 * model (`embedderOf`, null when it cannot be had here) so the passages not rebuilt yet keep their meaning; once it
 * is finished the model is let go and its worker ended.
 */
export function startBackgroundReindex(
  db: Knex,
  index: SearchIndex,
  identity: IndexIdentity,
  log: Logger,
  options: BackgroundReindexOptions = {},
): BackgroundReindex {
  const controller = new AbortController();
  let planned = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const previous = previousModel(db, index, identity, log, options.embedderOf ?? (() => null));
  const later = (seconds: number, n: number): void => {
    timer = setTimeout(() => attempt(n), seconds * 1000);
    timer.unref();
  };
  const attempt = (n: number): void => {
    running = (async () => {
      try {
        if (!planned) {
          const reason = await planReindex(db, identity);
          planned = true;
          if (reason) log.info(`rebuilding the search index in the background: ${reason}`);
        }
        await previous.follow();
        const result = await continueReindex(db, index, identity, {
          signal: controller.signal,
          onProgress: progressReporter(log),
          ...(options.batchSize ? { batchSize: options.batchSize } : {}),
        });
        searchReindexItems.reset();
        if (controller.signal.aborted) return;
        if (result) log.info(result, 'search index rebuilt');
        // Another process is on it: look again later (it may have stopped; the old model goes once it is done).
        else if (await rebuildStatus(db)) return later(WATCH_SECONDS, 0);
        await previous.follow();
      } catch (err) {
        if (controller.signal.aborted) return;
        const seconds = Math.min(300, 5 * 2 ** n);
        log.warn({ err }, `rebuilding the search index failed; trying again in ${seconds} s`);
        later(seconds, n + 1);
      }
    })();
  };
  attempt(0);
  return {
    async stop() {
      controller.abort();
      clearTimeout(timer);
      await running;
      await previous.release();
    },
    settled: () => running,
  };
}

/** Publishes a rebuild's progress to /metrics, and logs it every tenth. */
function progressReporter(log: Logger): (p: { done: number; total: number }) => void {
  let decile = -1;
  return (p) => {
    searchReindexItems.set({ state: 'done' }, p.done);
    searchReindexItems.set({ state: 'total' }, p.total);
    if (p.total > 0 && Math.floor((10 * p.done) / p.total) > decile) {
      decile = Math.floor((10 * p.done) / p.total);
      log.info(p, 'search index rebuild progress');
    }
  };
}

/** Keeps the index's previous model in step with the unfinished rebuild recorded in search_state. */
function previousModel(db: Knex, index: SearchIndex, identity: IndexIdentity, log: Logger, embedderOf: (identity: IndexIdentity) => Embedder | null) {
  let held: { name: string; embedder: Embedder | null } | null = null;
  // Only a finished rebuild lets the index drop the old model's vectors; a process that stops just ends the worker.
  const release = async (finished: boolean): Promise<void> => {
    const embedder = held?.embedder;
    const had = held !== null;
    held = null;
    if (had && finished) await index.setPrevious?.(null);
    await (embedder as { close?(): Promise<void> } | undefined)?.close?.();
  };
  return {
    release: () => release(false),
    async follow(): Promise<void> {
      const status = await rebuildStatus(db);
      // Only a process that embeds queries has use for the previous model.
      const wanted = status?.previous && identity.dimensions > 0 && status.previous.embedder !== identity.embedder ? status.previous : null;
      if (held && held.name === wanted?.embedder) return;
      await release(true);
      if (!wanted || !index.setPrevious) return;
      const embedder = embedderOf(wanted);
      held = { name: wanted.embedder, embedder };
      await index.setPrevious(held);
      if (!embedder)
        log.warn(`the ${wanted.embedder} embedder cannot run here: until the rebuild reaches them, the items it embedded are found by their words only`);
    },
  };
}
