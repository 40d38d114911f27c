/** Keeps the search index current: the outbox consumer of topic 'item' (src/search/sync.ts does the indexing). */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { SearchIndex } from '../core/search-index.js';
import { syncItems } from '../search/sync.js';
import type { OutboxConsumer } from './outbox.js';

/** The outbox consumer of topic 'item': one index update per batch, each item once however many rows it has. */
export function searchSync(db: Knex, index: SearchIndex, log: Logger): OutboxConsumer {
  return async function indexItemChanges(rows) {
    const started = performance.now();
    // A status or due-date change leaves the text as it was: its vectors are kept, not computed again.
    const result = await syncItems(
      db,
      index,
      rows.map((r) => r.subject_id),
      { reuseVectors: true },
    );
    log.debug({ ...result, rows: rows.length, ms: Math.round(performance.now() - started), backend: index.name }, 'search index updated');
  };
}
