/** The background rebuild of the search index (src/search/reindex.ts does the work). */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { searchReindexItems } from '../core/metrics.js';
import type { SearchIndex } from '../core/search-index.js';
import { continueReindex, planReindex, type IndexIdentity } from '../search/reindex.js';

/**
 * The server's part: plans a rebuild at start when needed (see planReindex) and works through any unfinished one in
 * the background, beside the outbox pump, so fresh writes are indexed meanwhile; a failure is retried with backoff.
 */
export function startBackgroundReindex(db: Knex, index: SearchIndex, identity: IndexIdentity, log: Logger): { stop(): Promise<void> } {
  const controller = new AbortController();
  let planned = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const attempt = (n: number): void => {
    running = (async () => {
      try {
        if (!planned) {
          const reason = await planReindex(db, identity);
          planned = true;
          if (reason) log.info(`rebuilding the search index in the background: ${reason}`);
        }
        let decile = -1;
        const result = await continueReindex(db, index, identity, {
          signal: controller.signal,
          onProgress: (p) => {
            searchReindexItems.set({ state: 'done' }, p.done);
            searchReindexItems.set({ state: 'total' }, p.total);
            if (p.total > 0 && Math.floor((10 * p.done) / p.total) > decile) {
              decile = Math.floor((10 * p.done) / p.total);
              log.info(p, 'search index rebuild progress');
            }
          },
        });
        if (result && !controller.signal.aborted) log.info(result, 'search index rebuilt');
        searchReindexItems.reset();
      } catch (err) {
        if (controller.signal.aborted) return;
        const seconds = Math.min(300, 5 * 2 ** n);
        log.warn({ err }, `rebuilding the search index failed; trying again in ${seconds} s`);
        timer = setTimeout(() => attempt(n + 1), seconds * 1000);
        timer.unref();
      }
    })();
  };
  attempt(0);
  return {
    async stop() {
      controller.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
