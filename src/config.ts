import path from 'node:path';
import { Ajv } from 'ajv';
import type { EmbedderConfig } from './search/embedders/index.js';

/**
 * Every setting of the service, read from the environment in one place and checked against
 * one schema. The README's configuration table lists the same names.
 */
const schema = {
  type: 'object',
  properties: {
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
    HOST: { type: 'string', default: '127.0.0.1' },
    BASE_URL: { type: 'string' },
    WEB_ORIGIN: { type: 'string' },
    APP_SCHEME: { type: 'string', default: 'listkeeper' },
    DATABASE_URL: { type: 'string' },
    LISTKEEPER_DATA_DIR: { type: 'string', default: './data' },
    RATE_LIMIT_PER_MINUTE: { type: 'integer', minimum: 1, default: 60 },
    BODY_LIMIT_BYTES: { type: 'integer', minimum: 1024, default: 5 * 1024 * 1024 },
    LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    MCP_ALLOWED_ORIGINS: { type: 'string', default: '' },
    TRASH_RETENTION_DAYS: { type: 'number', exclusiveMinimum: 0, default: 30 },
    SEARCH_BACKEND: { type: 'string', enum: ['postgres', 'meilisearch'], default: 'postgres' },
    MEILI_URL: { type: 'string' },
    MEILI_API_KEY: { type: 'string' },
    EMBEDDINGS: { type: 'string', enum: ['local', 'openai', 'none'] },
    EMBEDDINGS_URL: { type: 'string' },
    EMBEDDINGS_MODEL: { type: 'string' },
    EMBEDDINGS_API_KEY: { type: 'string' },
    EMBEDDINGS_DIMENSIONS: { type: 'integer', minimum: 1 },
  },
  additionalProperties: true,
} as const;

export interface Config {
  port: number;
  host: string;
  /** Public address of the service, without a trailing slash. */
  baseUrl: string;
  webOrigin: string;
  appScheme: string;
  databaseUrl: string | undefined;
  dataDir: string;
  rateLimitPerMinute: number;
  bodyLimitBytes: number;
  logLevel: string;
  /** Origins allowed to call /mcp from a browser, besides the service's own. */
  mcpAllowedOrigins: string[];
  trashRetentionDays: number;
  search: SearchConfig;
}

/** Where items are indexed and how text becomes vectors. @see README.md "Search" */
export interface SearchConfig {
  backend: 'postgres' | 'meilisearch';
  /** Meilisearch's address and key, with backend `meilisearch`. */
  meiliUrl: string | undefined;
  meiliApiKey: string | undefined;
  embeddings: EmbedderConfig;
}

type Env = Record<string, string | undefined>;

/** Reads the configuration from `env`; throws one sentence per wrong variable. */
export function loadConfig(env: Env = process.env): Config {
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true });
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) if (env[key] !== undefined && env[key] !== '') raw[key] = env[key];
  const validate = ajv.compile(schema);
  if (!validate(raw)) {
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath.slice(1)} ${e.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}.`);
  }
  const port = raw.PORT as number;
  const baseUrl = trimSlash((raw.BASE_URL as string | undefined) ?? `http://localhost:${port}`);
  return {
    port,
    host: raw.HOST as string,
    baseUrl,
    webOrigin: trimSlash((raw.WEB_ORIGIN as string | undefined) ?? baseUrl),
    appScheme: raw.APP_SCHEME as string,
    databaseUrl: raw.DATABASE_URL as string | undefined,
    dataDir: path.resolve(raw.LISTKEEPER_DATA_DIR as string),
    rateLimitPerMinute: raw.RATE_LIMIT_PER_MINUTE as number,
    bodyLimitBytes: raw.BODY_LIMIT_BYTES as number,
    logLevel: raw.LOG_LEVEL as string,
    mcpAllowedOrigins: String(raw.MCP_ALLOWED_ORIGINS).split(',').map((s) => s.trim()).filter(Boolean),
    trashRetentionDays: raw.TRASH_RETENTION_DAYS as number,
    search: searchConfig(raw),
  };
}

/** The search settings; refuses combinations that could only fail later (a backend or embedder without its address). */
function searchConfig(raw: Record<string, unknown>): SearchConfig {
  const backend = raw.SEARCH_BACKEND as SearchConfig['backend'];
  const meiliUrl = raw.MEILI_URL as string | undefined;
  if (backend === 'meilisearch' && !meiliUrl) throw new Error('Invalid configuration: SEARCH_BACKEND=meilisearch needs MEILI_URL (e.g. http://127.0.0.1:7700).');
  const url = raw.EMBEDDINGS_URL as string | undefined;
  const model = raw.EMBEDDINGS_MODEL as string | undefined;
  // Setting only EMBEDDINGS_URL says which embedder is meant.
  const kind = (raw.EMBEDDINGS as EmbedderConfig['kind'] | undefined) ?? (url ? 'openai' : 'local');
  if (kind === 'openai' && (!url || !model)) {
    throw new Error('Invalid configuration: EMBEDDINGS=openai needs EMBEDDINGS_URL (e.g. http://127.0.0.1:11434/v1) and EMBEDDINGS_MODEL.');
  }
  return {
    backend,
    meiliUrl,
    meiliApiKey: raw.MEILI_API_KEY as string | undefined,
    embeddings: {
      kind,
      ...(url ? { url } : {}),
      ...(model ? { model } : {}),
      ...(raw.EMBEDDINGS_API_KEY ? { apiKey: raw.EMBEDDINGS_API_KEY as string } : {}),
      ...(raw.EMBEDDINGS_DIMENSIONS ? { dimensions: raw.EMBEDDINGS_DIMENSIONS as number } : {}),
    },
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
