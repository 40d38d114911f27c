import { Worker } from 'node:worker_threads';
import type { Embedder } from '../../core/search-index.js';
import type { FusionParams } from '../fusion.js';
import { normalize } from './vectors.js';

/**
 * A model the local embedder runs in its worker thread: the worker's code (plain CommonJS, evaluated, so the same
 * code runs from the TypeScript sources and from dist/) and what it is given. The worker answers each
 * `{id, texts}` with `{id, vectors}` or `{id, error}`, and `{close: true}` by finishing the batch in hand (or the
 * model's load), releasing the model and exiting.
 */
export interface LocalModel {
  name: string;
  dimensions: number;
  source: string;
  data?: unknown;
  /** The fusion weights and cut-off fitted for this model's vectors (fusion.ts `fusionOf`). */
  fusion?: FusionParams;
}

/**
 * An embedding model run in-process, in a worker thread, from files on this machine: no network at run time.
 *
 * A model call cannot be interrupted, so a search's query waits for the batch in hand; batches of 4 texts keep that
 * wait short (bench/README.md "Local embedder"). On the main thread every request would wait behind each batch while
 * a backlog (an import, a reindex) is embedded. The worker loads the model on its first batch, not at start (the
 * model loads in the background after the server listens), and it does not keep the process alive when idle.
 */
export class LocalEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;
  readonly fusion: FusionParams | undefined;
  private worker: Worker | null = null;
  private exited: Promise<void> = Promise.resolve();
  private readonly pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** Counts close() calls, so a warm-up under way stops at the next one. */
  private closes = 0;
  private queue: Promise<unknown> = Promise.resolve();

  /** @param batchSize texts per model call (see above for why 4). */
  constructor(
    private readonly model: LocalModel,
    private readonly batchSize = 4,
  ) {
    this.name = model.name;
    this.dimensions = model.dimensions;
    this.fusion = model.fusion;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...(await this.runExclusive(texts.slice(i, i + this.batchSize))));
    }
    return out;
  }

  /**
   * Loads the model (once) ahead of the first request, then embeds single texts of 1 to 21 words: the first calls
   * after loading are slower until the engine's code paths for those input sizes are warm (bench/README.md). Runs in
   * the worker, in the background after the server listens.
   */
  async warmUp(): Promise<void> {
    const words = WARM_UP_WORDS.split(' ');
    const closes = this.closes;
    try {
      for (let n = 1; n <= words.length && this.closes === closes; n++) await this.embed([words.slice(0, n).join(' ')]);
    } catch (err) {
      // A close() in the middle ends the warm-up; it must not start the worker again either, or the process would
      // exit in the middle of that new worker's load.
      if (this.closes === closes) throw err;
    }
  }

  /**
   * Stops the worker thread once it has finished the batch in hand, or the model's load: a native model torn down
   * in the middle of its load aborts the whole process. A later call starts a new worker.
   */
  async close(): Promise<void> {
    this.closes++;
    const worker = this.worker;
    this.worker = null;
    if (!worker) return this.exited;
    worker.ref();
    worker.postMessage({ close: true });
    await this.exited;
  }

  // One batch at a time: the model keeps engine state in the worker, and a queue here keeps order and memory flat.
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
    const worker = new Worker(this.model.source, { eval: true, workerData: { from: import.meta.url, model: this.model.data } });
    worker.unref();
    worker.on('message', (message: { id: number; vectors?: Float32Array[]; error?: string }) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0 && this.worker === worker) worker.unref();
      if (message.vectors) waiting.resolve(message.vectors);
      else waiting.reject(new Error(`local embedding model ${this.name}: ${message.error ?? 'failed'}`));
    });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    this.exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.on('error', (err) => fail(new Error(`local embedding model ${this.name}: the worker failed: ${err.message}`)));
    worker.on('exit', (code) => fail(new Error(`local embedding model ${this.name}: the worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}

const WARM_UP_WORDS = 'where did I put the note about renewing the car insurance before the holiday in March with the children and grandparents';
