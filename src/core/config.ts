import path from 'node:path';
import { Ajv } from 'ajv';

/** Which embedder to use; `none` means keyword search only. Read from the environment below. */
export interface EmbedderConfig {
  kind: 'local' | 'openai' | 'none';
  url?: string;
  model?: string;
  apiKey?: string;
  /** Vector size of the openai model; asked from the service once when left out. */
  dimensions?: number;
}

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
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: { type: 'integer', minimum: 1, default: 600 },
    TRUST_PROXY: { type: 'boolean', default: false },
    TRUST_PROXY_HOPS: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
    ALLOW_SIGN_UP: { type: 'boolean' },
    CLIENT_REGISTRATIONS_PER_DAY: { type: 'integer', minimum: 1, default: 20 },
    SIGNIN_MAX_FAILURES_PER_ACCOUNT: { type: 'integer', minimum: 1, default: 10 },
    SIGNIN_MAX_FAILURES_PER_ADDRESS: { type: 'integer', minimum: 1, default: 100 },
    BODY_LIMIT_BYTES: { type: 'integer', minimum: 1024, default: 5 * 1024 * 1024 },
    LOG_LEVEL: { type: 'string', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    METRICS_TOKEN: { type: 'string' },
    SHUTDOWN_TIMEOUT_MS: { type: 'integer', minimum: 0, default: 10000 },
    LOG_FORMAT: { type: 'string', enum: ['auto', 'pretty', 'json'], default: 'auto' },
    MCP_ALLOWED_ORIGINS: { type: 'string', default: '' },
    MCP_ALLOWED_HOSTS: { type: 'string', default: '' },
    TRASH_RETENTION_DAYS: { type: 'number', exclusiveMinimum: 0, default: 30 },
    WEBHOOK_RETRY_BASE_SECONDS: { type: 'integer', minimum: 1, default: 10 },
    WEBHOOK_TIMEOUT_MS: { type: 'integer', minimum: 100, default: 10000 },
    JOB_MAINTENANCE_SECONDS: { type: 'integer', minimum: 1, maximum: 3600, default: 120 },
    REMINDER_POLL_SECONDS: { type: 'integer', minimum: 1, maximum: 300, default: 15 },
    MCP_EVENTS_TTL_SECONDS: { type: 'integer', minimum: 60, default: 86400 },
    AUTOMATION_DAILY_RUN_LIMIT: { type: 'integer', minimum: 1, default: 20 },
    OUTBOUND_ALLOW_PRIVATE: { type: 'boolean', default: false },
    SMTP_URL: { type: 'string' },
    SMTP_FROM: { type: 'string' },
    IMAGE_URLS_PER_REQUEST: { type: 'integer', minimum: 0, default: 20 },
    IMAGE_BYTES_PER_REQUEST: { type: 'integer', minimum: 0, default: 50 * 1024 * 1024 },
    IMAGE_SECONDS_PER_REQUEST: { type: 'integer', minimum: 1, default: 30 },
    STORAGE_QUOTA_MB: { type: 'integer', minimum: 0, default: 1024 },
    S3_BUCKET: { type: 'string' },
    S3_ENDPOINT: { type: 'string' },
    S3_REGION: { type: 'string', default: 'us-east-1' },
    S3_ACCESS_KEY_ID: { type: 'string' },
    S3_SECRET_ACCESS_KEY: { type: 'string' },
    S3_PREFIX: { type: 'string', default: '' },
    S3_FORCE_PATH_STYLE: { type: 'boolean' },
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
  /** Requests a minute per client address, authenticated or not (shared through Postgres). */
  rateLimitPerAddressPerMinute: number;
  /** Take the client address and protocol from X-Forwarded-For/-Proto (behind a reverse proxy). */
  trustProxy: boolean;
  /** How many proxies in front append to X-Forwarded-For: the client is that many entries from the right (koa maxIpsCount). */
  trustProxyHops: number;
  /** Whether anyone may create an account on the sign-up page; unset: only when BASE_URL is a loopback address. */
  allowSignUp: boolean;
  bodyLimitBytes: number;
  logLevel: string;
  /** When set, /metrics asks for `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** OAuth client registrations one address may make a day. */
  clientRegistrationsPerDay: number;
  /** Failed sign-ins before an email is refused for 15 minutes, and an address for a day. */
  signInMaxFailures: { perAccount: number; perAddress: number };
  /** How long a stopping process waits for requests in flight before it cuts them off. */
  shutdownTimeoutMs: number;
  /** `pretty`: readable lines (pino-pretty); `json`: one JSON object a line; `auto`: pretty on a terminal. */
  logFormat: 'auto' | 'pretty' | 'json';
  /** Origins allowed to call /mcp from a browser, besides the service's own. */
  mcpAllowedOrigins: string[];
  /** Host headers /mcp answers besides BASE_URL's host name and loopback (`host` any port, or `host:port`). */
  mcpAllowedHosts: string[];
  trashRetentionDays: number;
  /** First retry of a failed webhook delivery after about this many seconds (doubling, with jitter). */
  webhookRetryBaseSeconds: number;
  /** How long one webhook request may take. */
  webhookTimeoutMs: number;
  /** How often the job queue retries jobs a stopped process left running, and archives old ones. */
  jobMaintenanceSeconds: number;
  /** How often each process looks for reminders whose time came (src/jobs/reminders.ts). */
  reminderPollSeconds: number;
  /** Longest lifetime granted to an MCP events/subscribe before it must be refreshed. */
  mcpEventsTtlSeconds: number;
  /** Runs of one automation a day (the person's local day), scheduled runs included. */
  automationDailyRunLimit: number;
  /**
   * Development and tests only: let every request the service makes (webhook callbacks, image
   * downloads, automation webhooks) use http and reach private, loopback and link-local
   * addresses, which are refused otherwise (SSRF).
   */
  outboundAllowPrivate: boolean;
  /**
   * The mail server notification emails go through (`smtp://user:password@host:587`, or
   * `smtps://` for TLS from the start), and their sender; null: no email channel.
   */
  smtp: { url: string; from: string } | null;
  /** What one create_items or update_items call may download from `imageUrls`: URLs, bytes in all, seconds in all. */
  imageDownloads: { urlsPerRequest: number; bytesPerRequest: number; secondsPerRequest: number };
  /** Bytes of images one account may keep (attached, or uploaded to a slot); 0: none. */
  storageQuotaBytes: number;
  /** Keep images in this S3-compatible bucket instead of the data folder; null: the data folder. */
  s3: {
    bucket: string;
    endpoint: string | null;
    region: string;
    accessKeyId: string | null;
    secretAccessKey: string | null;
    prefix: string;
    forcePathStyle: boolean;
  } | null;
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

/** Every setting the service reads from the environment, by name. */
export function settingNames(): string[] {
  return Object.keys(schema.properties);
}

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
  const baseUrl = trimSlash((raw.BASE_URL as string | undefined) ?? defaultBaseUrl(raw.HOST as string, port));
  return {
    port,
    host: raw.HOST as string,
    baseUrl,
    webOrigin: trimSlash((raw.WEB_ORIGIN as string | undefined) ?? baseUrl),
    appScheme: raw.APP_SCHEME as string,
    databaseUrl: raw.DATABASE_URL as string | undefined,
    dataDir: path.resolve(raw.LISTKEEPER_DATA_DIR as string),
    rateLimitPerMinute: raw.RATE_LIMIT_PER_MINUTE as number,
    rateLimitPerAddressPerMinute: raw.RATE_LIMIT_PER_ADDRESS_PER_MINUTE as number,
    trustProxy: raw.TRUST_PROXY as boolean,
    trustProxyHops: raw.TRUST_PROXY_HOPS as number,
    allowSignUp: (raw.ALLOW_SIGN_UP as boolean | undefined) ?? isLoopbackUrl(baseUrl),
    bodyLimitBytes: raw.BODY_LIMIT_BYTES as number,
    logLevel: raw.LOG_LEVEL as string,
    shutdownTimeoutMs: raw.SHUTDOWN_TIMEOUT_MS as number,
    clientRegistrationsPerDay: raw.CLIENT_REGISTRATIONS_PER_DAY as number,
    signInMaxFailures: { perAccount: raw.SIGNIN_MAX_FAILURES_PER_ACCOUNT as number, perAddress: raw.SIGNIN_MAX_FAILURES_PER_ADDRESS as number },
    metricsToken: raw.METRICS_TOKEN as string | undefined,
    logFormat: raw.LOG_FORMAT as Config['logFormat'],
    mcpAllowedOrigins: String(raw.MCP_ALLOWED_ORIGINS)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    mcpAllowedHosts: String(raw.MCP_ALLOWED_HOSTS)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    trashRetentionDays: raw.TRASH_RETENTION_DAYS as number,
    webhookRetryBaseSeconds: raw.WEBHOOK_RETRY_BASE_SECONDS as number,
    webhookTimeoutMs: raw.WEBHOOK_TIMEOUT_MS as number,
    jobMaintenanceSeconds: raw.JOB_MAINTENANCE_SECONDS as number,
    reminderPollSeconds: raw.REMINDER_POLL_SECONDS as number,
    mcpEventsTtlSeconds: raw.MCP_EVENTS_TTL_SECONDS as number,
    automationDailyRunLimit: raw.AUTOMATION_DAILY_RUN_LIMIT as number,
    outboundAllowPrivate: raw.OUTBOUND_ALLOW_PRIVATE as boolean,
    smtp: raw.SMTP_URL
      ? { url: raw.SMTP_URL as string, from: (raw.SMTP_FROM as string | undefined) ?? `listkeeper <listkeeper@${new URL(baseUrl).hostname}>` }
      : null,
    imageDownloads: {
      urlsPerRequest: raw.IMAGE_URLS_PER_REQUEST as number,
      bytesPerRequest: raw.IMAGE_BYTES_PER_REQUEST as number,
      secondsPerRequest: raw.IMAGE_SECONDS_PER_REQUEST as number,
    },
    storageQuotaBytes: (raw.STORAGE_QUOTA_MB as number) * 1024 * 1024,
    s3: raw.S3_BUCKET
      ? {
          bucket: raw.S3_BUCKET as string,
          endpoint: (raw.S3_ENDPOINT as string | undefined) ?? null,
          region: raw.S3_REGION as string,
          accessKeyId: (raw.S3_ACCESS_KEY_ID as string | undefined) ?? null,
          secretAccessKey: (raw.S3_SECRET_ACCESS_KEY as string | undefined) ?? null,
          prefix: raw.S3_PREFIX as string,
          // S3-compatible stores at their own address mostly want path-style URLs.
          forcePathStyle: (raw.S3_FORCE_PATH_STYLE as boolean | undefined) ?? raw.S3_ENDPOINT !== undefined,
        }
      : null,
    search: searchConfig(raw),
  };
}

/** The search settings; refuses combinations that could only fail later (a backend or embedder without its address). */
function searchConfig(raw: Record<string, unknown>): SearchConfig {
  const backend = raw.SEARCH_BACKEND as SearchConfig['backend'];
  const meiliUrl = raw.MEILI_URL as string | undefined;
  if (backend === 'meilisearch' && !meiliUrl)
    throw new Error('Invalid configuration: SEARCH_BACKEND=meilisearch needs MEILI_URL (e.g. http://127.0.0.1:7700).');
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

/** True when the URL's host is this machine (localhost, 127.0.0.0/8, ::1): a server only its own user reaches. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * BASE_URL when it is not set: the address the server listens on, so the URL it prints is the
 * one the sign-in forms accept. A wildcard address (0.0.0.0, ::) is reached as localhost.
 */
export function defaultBaseUrl(host: string, port: number): string {
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const name = wildcard ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
