import type { Embedder } from '../../src/core/search-index.js';
import type { FusionParams } from '../../src/search/fusion.js';

/** An embedder the ensemble holds: its vectors are unit length (LocalEmbedder normalizes them). */
export interface PartEmbedder extends Embedder {
  warmUp?(): Promise<void>;
  close?(): Promise<void>;
}

/**
 * Several embedders as one: a text's vector is the concatenation of each part's unit vector scaled by the square
 * root of the part's weight (weights summing to 1), so the vector is unit length and the dot product of two of them
 * is the weighted mean of the parts' cosines. Measured by bench/search/candidates.ts (`ensemble-bge-minilm`); not a
 * model the service runs.
 */
export class EnsembleEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;
  readonly fusion: FusionParams | undefined = undefined;
  private readonly scales: number[];

  constructor(
    private readonly parts: PartEmbedder[],
    weights: number[] = parts.map(() => 1 / parts.length),
  ) {
    const total = weights.reduce((a, b) => a + b, 0);
    this.scales = weights.map((w) => Math.sqrt(w / total));
    this.name = `ensemble:${parts.map((p, i) => `${p.name}@${(weights[i]! / total).toFixed(2)}`).join('+')}`;
    this.dimensions = parts.reduce((sum, p) => sum + p.dimensions, 0);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    // One part after the other: each runs in its own worker, and the machine has few cores to spare.
    const perPart: Float32Array[][] = [];
    for (const part of this.parts) perPart.push(await part.embed(texts));
    return texts.map((_, t) => {
      const v = new Float32Array(this.dimensions);
      let offset = 0;
      perPart.forEach((vectors, p) => {
        const part = vectors[t]!;
        for (let k = 0; k < part.length; k++) v[offset + k] = part[k]! * this.scales[p]!;
        offset += part.length;
      });
      return v;
    });
  }

  async warmUp(): Promise<void> {
    for (const part of this.parts) await part.warmUp?.();
  }

  async close(): Promise<void> {
    await Promise.all(this.parts.map((p) => p.close?.()));
  }
}
