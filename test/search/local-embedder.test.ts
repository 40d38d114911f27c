/**
 * The local model runs in a worker thread: vectors are unit length and mean something, and the event loop keeps
 * turning while a batch is embedded. The default model (fetched by `npm install`) and USE-lite, its fallback, both.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Embedder } from '../../src/core/search-index.js';
import { EnsembleEmbedder } from '../../bench/search/ensemble.js';
import { defaultLocalModel } from '../../src/search/embedders/index.js';
import { LocalEmbedder, type LocalModel } from '../../src/search/embedders/local.js';
import { USE_LITE } from '../../src/search/embedders/use-lite.js';

const models: [string, LocalModel][] = [
  ['the default model', defaultLocalModel()],
  ['USE-lite, the fallback', USE_LITE],
];

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe.each(models)('LocalEmbedder with %s', (_, model) => {
  const embedder = new LocalEmbedder(model, 64);
  afterAll(() => embedder.close());

  it("gives unit vectors of the model's size, closer for paraphrases than for unrelated text", async () => {
    const [car, vehicle, cake] = await embedder.embed(['car insurance renewal', 'vehicle policy', 'chocolate cake recipe']);
    for (const v of [car!, vehicle!, cake!]) {
      expect(v).toHaveLength(model.dimensions);
      expect(cosine(v, v)).toBeCloseTo(1, 4);
    }
    expect(cosine(car!, vehicle!)).toBeGreaterThan(cosine(car!, cake!));
  });

  it('gives a text the same vector alone as in a batch with longer and shorter texts', async () => {
    const texts = ['car insurance', 'a much longer note about renewing the vehicle policy with the broker before March', 'cake'];
    const batched = new LocalEmbedder(model, 3);
    const together = await batched.embed(texts).finally(() => batched.close());
    const alone = await Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]!));
    // int8 models quantize each layer's input with a scale taken from the whole batch, so a batch moves a vector by
    // rounding noise; padding itself must not (mean pooling over the padded tokens would drop this far below).
    alone.forEach((v, i) => expect(cosine(v, together[i]!)).toBeGreaterThan(0.99));
  });

  it('embeds an empty or blank text without failing', async () => {
    const vectors = await embedder.embed(['', '   ']);
    expect(vectors).toHaveLength(2);
  });

  it('leaves the event loop free while it embeds a batch', async () => {
    await embedder.warmUp();
    const texts = Array.from({ length: 64 }, (_, i) => `note ${i}: call the plumber about the leaking kitchen tap before friday`);
    let last = performance.now();
    let longestGap = 0;
    let ticks = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 2);
    const started = performance.now();
    await embedder.embed(texts);
    const took = performance.now() - started;
    clearInterval(timer);
    // On the main thread one model call of 64 texts would hold the loop for (nearly) all of it.
    expect(ticks).toBeGreaterThan(3);
    expect(longestGap).toBeLessThan(took / 2);
  });

  it('ends a warm-up under way at close, without starting the worker again', async () => {
    const warming = new LocalEmbedder(model);
    const warmUp = warming.warmUp();
    await warming.embed(['loaded']);
    await warming.close();
    await expect(warmUp).resolves.toBeUndefined();
    // A worker started after close() would be loading the model while the process exits (shutdown closes search last).
    expect(Reflect.get(warming, 'worker')).toBeNull();
  });

  it('starts a new worker after close', async () => {
    await embedder.close();
    expect(await embedder.embed(['again'])).toHaveLength(1);
  });
});

describe('EnsembleEmbedder', () => {
  // Parts that give fixed unit vectors, so the cosines of each part are known.
  const part = (name: string, vectors: Record<string, number[]>): Embedder => ({
    name,
    dimensions: 2,
    embed: async (texts) => texts.map((t) => Float32Array.from(vectors[t]!)),
  });
  const a = part('a', { x: [1, 0], y: [0.6, 0.8] }); // cosine of x and y: 0.6
  const b = part('b', { x: [0, 1], y: [0, -1] }); // cosine: -1

  it('gives unit vectors whose dot product is the weighted mean of the parts cosines', async () => {
    const equal = new EnsembleEmbedder([a, b]);
    expect(equal.dimensions).toBe(4);
    const [x, y] = await equal.embed(['x', 'y']);
    expect(cosine(x!, x!)).toBeCloseTo(1, 6);
    expect(cosine(x!, y!)).toBeCloseTo((0.6 - 1) / 2, 6);
    const weighted = new EnsembleEmbedder([a, b], [0.6, 0.4]);
    const [wx, wy] = await weighted.embed(['x', 'y']);
    expect(cosine(wx!, wx!)).toBeCloseTo(1, 6);
    expect(cosine(wx!, wy!)).toBeCloseTo(0.6 * 0.6 - 0.4, 6);
    expect(weighted.name).not.toBe(equal.name);
  });
});
