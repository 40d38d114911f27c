import type { Embedder } from '../types.js';
import { LocalEmbedder } from './local.js';
import { OpenAIEmbedder, probeDimensions } from './openai.js';

/** Which embedder to use; `none` means keyword search only. Read from the environment by src/config.ts. */
export interface EmbedderConfig {
  kind: 'local' | 'openai' | 'none';
  url?: string;
  model?: string;
  apiKey?: string;
  /** Vector size of the openai model; asked from the service once when left out. */
  dimensions?: number;
}

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
