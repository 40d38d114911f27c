/**
 * Compact vector codes for reranking on Postgres: a passage vector as one float32 scale
 * (little-endian) followed by one signed byte a dimension, `round(x / max|x| * 127)`.
 * Reading 300 of these (516 bytes each at 512 dimensions) and taking dot products in Node
 * is cheaper than the same rerank over real[] in SQL (bench/README.md "Postgres semantic leg").
 * The cosine a code gives is within about 0.005 of the exact one for unit vectors.
 */

/** Quantizes a vector to its code. */
export function encodeVector(vector: Float32Array): Buffer {
  let max = 0;
  for (const x of vector) max = Math.max(max, Math.abs(x));
  const code = Buffer.alloc(4 + vector.length);
  const scale = max / 127;
  code.writeFloatLE(scale, 0);
  if (scale > 0) for (let i = 0; i < vector.length; i++) code.writeInt8(Math.round(vector[i]! / scale), 4 + i);
  return code;
}

/** Dot product of a code with a full vector (the cosine, for unit vectors); null when the sizes differ. */
export function dotWithCode(code: Buffer, vector: Float32Array): number | null {
  if (code.length !== 4 + vector.length) return null;
  const scale = code.readFloatLE(0);
  const values = new Int8Array(code.buffer, code.byteOffset + 4, vector.length);
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]! * vector[i]!;
  return sum * scale;
}
