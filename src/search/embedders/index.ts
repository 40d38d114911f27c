import type { EmbedderConfig } from '../../core/config.js';
import type { Embedder } from '../../core/search-index.js';

export type { EmbedderConfig };
import { LocalEmbedder } from './local.js';
import { OpenAIEmbedder, probeDimensions } from './openai.js';

/** Builds the configured embedder, or null for keyword-only search. */
export async function createEmbedder(config: EmbedderConfig): Promise<Embedder | null> {
  switch (config.kind) {
    case 'none':
      return null;
    case 'local':
      return new LocalEmbedder();
    case 'openai': {
      if (!config.url || !config.model) throw new Error('openai embedder needs EMBEDDINGS_URL and EMBEDDINGS_MODEL');
      const base = { url: config.url, model: config.model, apiKey: config.apiKey };
      return new OpenAIEmbedder({ ...base, dimensions: config.dimensions ?? (await probeDimensions(base)) });
    }
  }
}
