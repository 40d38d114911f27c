import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FusionParams } from '../fusion.js';
import type { LocalModel } from './local.js';

/** One entry of models/models.json: an ONNX sentence-embedding model and how to pool and prompt it. */
export interface OnnxModelSpec {
  id: string;
  maven: string;
  sha256: string;
  onnx: string;
  tokenizer: string;
  dimensions: number;
  /** `cls`: the first token's state (BGE); `mean`: the mean over the text's tokens (MiniLM, E5). */
  pooling: 'cls' | 'mean';
  /** Put before every text (E5 is trained with "query: "). */
  prefix: string;
  /** Fitted by bench/search/candidates.ts on the labeled set's fitting queries; the defaults when absent. */
  fusion?: FusionParams;
}

/** The project's models/ folder: next to package.json, whether this runs from src/ or from dist/src/. */
export function modelsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'models', 'models.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return path.join(process.cwd(), 'models');
    dir = parent;
  }
  return path.join(dir, 'models');
}

/** The catalogue, the default model first. */
export function onnxCatalogue(): OnnxModelSpec[] {
  const file = path.join(modelsDir(), 'models.json');
  if (!fs.existsSync(file)) return [];
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { models: OnnxModelSpec[] }).models;
}

/**
 * The worker model for `spec` when tools/fetch-models.mjs put its files here (checked by their SHA-256 at fetch time,
 * stamped last), else null; `onnxruntime-node` must be installed too.
 */
export function onnxModel(spec: OnnxModelSpec, dir = path.join(modelsDir(), spec.id)): LocalModel | null {
  const stamp = path.join(dir, '.sha256');
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8').trim() !== spec.sha256 || !runtimeInstalled()) return null;
  return {
    name: `local:${spec.id}`,
    dimensions: spec.dimensions,
    source: ONNX_WORKER,
    ...(spec.fusion ? { fusion: spec.fusion } : {}),
    data: { onnx: path.join(dir, spec.onnx), tokenizer: path.join(dir, spec.tokenizer), pooling: spec.pooling, prefix: spec.prefix, maxTokens: 512 },
  };
}

function runtimeInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node');
    return true;
  } catch {
    return false;
  }
}

/**
 * ONNX Runtime on one thread (the machine's other core keeps serving) and the model's own tokenizer. Texts are
 * padded to the longest of their batch; vectors are pooled as the model was trained, and normalized by the caller.
 */
const ONNX_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const load = require('node:module').createRequire(workerData.from);
const spec = workerData.model;
let ready = null;
function getModel() {
  if (!ready) {
    ready = (async () => {
      const ort = load('onnxruntime-node');
      const { Tokenizer } = load('@huggingface/tokenizers');
      const tokenizer = new Tokenizer(JSON.parse(fs.readFileSync(spec.tokenizer, 'utf8')), {});
      const session = await ort.InferenceSession.create(spec.onnx, {
        intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
      });
      return { ort, tokenizer, session };
    })();
    ready.catch(() => { ready = null; });
  }
  return ready;
}
function tokens(m, text) {
  const ids = m.tokenizer.encode(spec.prefix + (text.trim() || ' ')).ids;
  return ids.length <= spec.maxTokens ? ids : ids.slice(0, spec.maxTokens - 1).concat(ids[ids.length - 1]);
}
async function embed(m, texts) {
  const encoded = texts.map((t) => tokens(m, t));
  const n = encoded.length;
  const len = Math.max(...encoded.map((e) => e.length));
  const ids = new BigInt64Array(n * len), mask = new BigInt64Array(n * len), types = new BigInt64Array(n * len);
  encoded.forEach((e, i) => e.forEach((id, j) => { ids[i * len + j] = BigInt(id); mask[i * len + j] = 1n; }));
  const shape = [n, len];
  const out = await m.session.run({
    input_ids: new m.ort.Tensor('int64', ids, shape),
    attention_mask: new m.ort.Tensor('int64', mask, shape),
    token_type_ids: new m.ort.Tensor('int64', types, shape),
  });
  const states = out.last_hidden_state;
  const dim = states.dims[2];
  const data = states.data;
  const vectors = encoded.map((e, i) => {
    const v = new Float32Array(dim);
    const count = spec.pooling === 'cls' ? 1 : e.length;
    for (let t = 0; t < count; t++) {
      const base = (i * len + t) * dim;
      for (let k = 0; k < dim; k++) v[k] += data[base + k];
    }
    return v;
  });
  states.dispose?.();
  return vectors;
}
let chain = Promise.resolve();
parentPort.on('message', ({ id, texts, close }) => {
  chain = chain.then(async () => {
    if (close) {
      const m = ready ? await ready.catch(() => null) : null;
      if (m) await m.session.release().catch(() => undefined);
      process.exit(0);
    }
    try {
      const vectors = await embed(await getModel(), texts);
      parentPort.postMessage({ id, vectors }, vectors.map((v) => v.buffer));
    } catch (err) {
      parentPort.postMessage({ id, error: err && err.message ? err.message : String(err) });
    }
  });
});
`;
