import type { Embedder } from '../types.js';
import { LocalEmbedder } from './local.js';
import { OpenAIEmbedder, probeDimensions } from './openai.js';

/** Which embedder to use; `none` means keyword search only. */
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

/** Reads EMBEDDINGS_KIND, EMBEDDINGS_URL, EMBEDDINGS_MODEL, EMBEDDINGS_API_KEY, EMBEDDINGS_DIMENSIONS. */
export function embedderConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EmbedderConfig {
  const kind = env.EMBEDDINGS_KIND ?? (env.EMBEDDINGS_URL ? 'openai' : 'local');
  if (kind !== 'local' && kind !== 'openai' && kind !== 'none') throw new Error(`EMBEDDINGS_KIND must be local, openai or none, not ${kind}`);
  const dimensions = env.EMBEDDINGS_DIMENSIONS ? Number(env.EMBEDDINGS_DIMENSIONS) : undefined;
  return { kind, url: env.EMBEDDINGS_URL, model: env.EMBEDDINGS_MODEL, apiKey: env.EMBEDDINGS_API_KEY, dimensions };
}
