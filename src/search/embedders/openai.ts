import type { Embedder } from '../../core/search-index.js';
import { normalize } from './vectors.js';

/** Settings of an OpenAI-compatible embeddings API. */
export interface OpenAIEmbedderConfig {
  /** Base URL of the API, e.g. https://api.openai.com/v1 ; requests go to `${url}/embeddings`. */
  url: string;
  model: string;
  apiKey?: string;
  dimensions: number;
  batchSize?: number;
  timeoutMs?: number;
}

interface EmbeddingsResponse {
  data?: { embedding: number[]; index: number }[];
}

/** Embeds through any service that speaks OpenAI's POST /v1/embeddings (OpenAI, Ollama, vLLM, LM Studio, ...). */
export class OpenAIEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;
  private readonly endpoint: string;

  constructor(private readonly config: OpenAIEmbedderConfig) {
    this.name = `openai:${config.model}`;
    this.dimensions = config.dimensions;
    this.endpoint = `${config.url.replace(/\/+$/, '')}/embeddings`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const size = this.config.batchSize ?? 64;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += size) out.push(...(await this.request(texts.slice(i, i + size))));
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const vectors = await requestEmbeddings(this.config, this.endpoint, input);
    return vectors.map((v) => {
      if (v.length !== this.dimensions) {
        throw new Error(`embeddings from ${this.name} have ${v.length} dimensions, expected ${this.dimensions}`);
      }
      return normalize(Float32Array.from(v));
    });
  }
}

async function requestEmbeddings(config: Omit<OpenAIEmbedderConfig, 'dimensions'>, endpoint: string, input: string[]): Promise<number[][]> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const res = await fetch(endpoint, {
    method: 'POST',
    headers,
    // Some servers reject empty strings, and an empty passage means nothing anyway.
    body: JSON.stringify({ model: config.model, input: input.map((t) => t.trim() || ' '), encoding_format: 'float' }),
    signal: AbortSignal.timeout(config.timeoutMs ?? 30_000),
  });
  if (!res.ok) {
    const detail = (await res.text().catch(() => '')).slice(0, 300);
    throw new Error(`embeddings request to ${endpoint} failed: ${res.status} ${res.statusText} ${detail}`.trim());
  }
  const data = ((await res.json()) as EmbeddingsResponse).data;
  if (!Array.isArray(data) || data.length !== input.length) {
    throw new Error(`embeddings response from ${endpoint} has ${data?.length ?? 'no'} vectors for ${input.length} inputs`);
  }
  // The API may answer out of order; `index` is what ties a vector to its input.
  return [...data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
}

/** Asks the service once for the size of its vectors, for when it is not configured. */
export async function probeDimensions(config: Omit<OpenAIEmbedderConfig, 'dimensions'>): Promise<number> {
  const [vector] = await requestEmbeddings(config, `${config.url.replace(/\/+$/, '')}/embeddings`, ['dimension probe']);
  return vector!.length;
}
