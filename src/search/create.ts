/**
 * Builds the configured search index and embedder, once per process (the server and the reindex command).
 * @see ../../docs/search.md
 */
import type { Knex } from 'knex';
import type { SearchConfig } from '../core/config.js';
import type { Embedder, SearchIndex } from '../core/search-index.js';
import { createEmbedder, localEmbedderNamed } from './embedders/index.js';
import { LocalEmbedder } from './embedders/local.js';
import { PostgresSearchIndex } from './postgres.js';
import { MeiliSearchIndex } from './meili.js';
import type { IndexIdentity } from './reindex.js';

export interface Search {
  index: SearchIndex;
  embedder: Embedder | null;
  identity: IndexIdentity;
  /** Loads the local model ahead of the first search or indexing; a no-op for the other embedders. */
  warmUp(): Promise<void>;
  /** Stops the local model's worker thread, busy or not (a later call starts it again). */
  close(): Promise<void>;
  /** Builds the embedder an earlier index was built with, when it is a local model that can run here; else null. */
  embedderOf(identity: IndexIdentity): Embedder | null;
}

/**
 * The index of `config.backend` with the embedder of `config.embeddings`. Nothing slow happens here: the local model
 * loads on first use or on warmUp(), and the Meilisearch client is only imported when it is the backend. An
 * OpenAI-compatible embedder without EMBEDDINGS_DIMENSIONS asks its server once for the vector size.
 */
export async function createSearch(config: SearchConfig, db: Knex): Promise<Search> {
  const embedder = await createEmbedder(config.embeddings);
  let index: SearchIndex;
  if (config.backend === 'meilisearch') {
    const { Meilisearch } = await import('meilisearch');
    index = new MeiliSearchIndex(new Meilisearch({ host: config.meiliUrl!, ...(config.meiliApiKey ? { apiKey: config.meiliApiKey } : {}) }), embedder);
  } else {
    index = new PostgresSearchIndex(db, embedder);
  }
  return {
    index,
    embedder,
    identity: { backend: index.name, embedder: embedder?.name ?? 'none', dimensions: embedder?.dimensions ?? 0 },
    warmUp: async () => {
      if (embedder instanceof LocalEmbedder) await embedder.warmUp();
    },
    close: async () => {
      if (embedder instanceof LocalEmbedder) await embedder.close();
    },
    embedderOf: (identity) => {
      const found = localEmbedderNamed(identity.embedder);
      return found?.dimensions === identity.dimensions ? found : null;
    },
  };
}
