import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createEmbedder, defaultLocalModel } from '../../src/search/embedders/index.js';
import { modelsDir, onnxCatalogue, onnxModel } from '../../src/search/embedders/onnx.js';
import { USE_LITE } from '../../src/search/embedders/use-lite.js';
import { OpenAIEmbedder } from '../../src/search/embedders/openai.js';

/** What the fake /v1/embeddings server saw. */
interface Seen {
  authorization?: string;
  model?: string;
  inputs: string[][];
}

describe('OpenAI-compatible embedder against a local fake server', () => {
  const seen: Seen = { inputs: [] };
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.url !== '/v1/embeddings' || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        const { model, input } = JSON.parse(body) as { model: string; input: string[] };
        seen.authorization = req.headers.authorization;
        seen.model = model;
        seen.inputs.push(input);
        if (input.includes('fail')) {
          res.writeHead(429, { 'content-type': 'application/json' }).end('{"error":"slow down"}');
          return;
        }
        // Vector i is [len, i+1, 0] (not unit length), returned in reverse order to check sorting by index.
        const data = input.map((text, index) => ({ index, embedding: [text.length, index + 1, 0] })).reverse();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('posts batches with model and key, and returns unit vectors in input order', async () => {
    const embedder = new OpenAIEmbedder({ url, model: 'tiny', apiKey: 'k-123', dimensions: 3, batchSize: 2 });
    const vectors = await embedder.embed(['abc', 'de', 'f']);
    expect(seen.inputs.slice(-2)).toEqual([['abc', 'de'], ['f']]);
    expect(seen.authorization).toBe('Bearer k-123');
    expect(seen.model).toBe('tiny');
    const [first, second] = vectors.map((v) => Array.from(v));
    expect(first?.[0]).toBeCloseTo(3 / Math.hypot(3, 1));
    expect(second?.[1]).toBeCloseTo(2 / Math.hypot(2, 2));
    for (const v of vectors) expect(Math.hypot(...v)).toBeCloseTo(1);
  });

  it('learns the dimensions from the service when not configured', async () => {
    const embedder = await createEmbedder({ kind: 'openai', url, model: 'tiny' });
    expect(embedder?.dimensions).toBe(3);
    expect(embedder?.name).toBe('openai:tiny');
  });

  it('reports the status and body of a failed request', async () => {
    const embedder = new OpenAIEmbedder({ url, model: 'tiny', dimensions: 3 });
    await expect(embedder.embed(['fail'])).rejects.toThrow(/429.*slow down/);
  });

  it('rejects vectors of the wrong size', async () => {
    const embedder = new OpenAIEmbedder({ url, model: 'tiny', dimensions: 512 });
    await expect(embedder.embed(['x'])).rejects.toThrow(/3 dimensions, expected 512/);
  });

  it('means keyword-only search for kind none', async () => {
    expect(await createEmbedder({ kind: 'none' })).toBeNull();
  });
});

describe('the local model', () => {
  const [spec] = onnxCatalogue();

  it('is the catalogue first model when its files were fetched, with the fusion fitted for it', () => {
    const model = onnxModel(spec!, path.join(modelsDir(), spec!.id));
    expect(model?.name).toBe(`local:${spec!.id}`);
    expect(defaultLocalModel()).toMatchObject({ name: model!.name, dimensions: spec!.dimensions, fusion: spec!.fusion });
  });

  it('falls back to USE-lite when the files are missing or do not match the catalogue', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lk-model-'));
    try {
      expect(onnxModel(spec!, dir)).toBeNull();
      await writeFile(path.join(dir, '.sha256'), '0'.repeat(64));
      expect(onnxModel(spec!, dir)).toBeNull();
      expect(USE_LITE.name).toBe('local:use-lite');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
