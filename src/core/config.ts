import path from 'node:path';
import { Ajv } from 'ajv';
import { defaultBaseUrl, isLoopbackUrl, trimSlash } from './base-url.js';

export { defaultBaseUrl, isLoopbackUrl };

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
 * Every setting of the service, by group: read from the environment in one place and checked
 * against one schema. Each carries what it means (`description`) and, where its default is
 * worked out at start, that default in words (`x-default`): docs/configuration.md is written
 * from these by `make gen` (codegen/config-docs.ts), so the reference cannot drift from the code.
 */
const groups = {
  'Addresses and proxies': {
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 8080, description: 'Port to listen on.' },
    HOST: { type: 'string', default: '127.0.0.1', description: 'Address to bind; `0.0.0.0` to serve other machines.' },
    BASE_URL: {
      type: 'string',
      'x-default': '`http://$HOST:$PORT` (`localhost` for `0.0.0.0`)',
      description:
        "The service's public address (OAuth metadata, links, the sign-in forms' origin). Unset, it is the address the service listens on, so the URL it prints is the one sign-in works on.",
    },
    WEB_ORIGIN: { type: 'string', 'x-default': '`BASE_URL`', description: 'Origin of the web pages; item links are `$WEB_ORIGIN/artifacts/<id>`.' },
    APP_SCHEME: { type: 'string', default: 'listkeeper', description: 'Link scheme of the desktop app (`listkeeper://artifacts/<id>`).' },
    TRUST_PROXY: {
      type: 'boolean',
      default: false,
      description: 'Take the client address and protocol from `X-Forwarded-For`/`X-Forwarded-Proto` (set it behind a reverse proxy, and only then).',
    },
    TRUST_PROXY_HOPS: {
      type: 'integer',
      minimum: 1,
      maximum: 10,
      default: 1,
      description:
        'How many proxies in front append to `X-Forwarded-For`: the client address is read that many entries from the right, so an entry the client wrote itself changes nothing.',
    },
    MCP_ALLOWED_ORIGINS: {
      type: 'string',
      default: '',
      description:
        "Comma-separated browser origins allowed to call `/mcp` besides the service's own (`BASE_URL`, `WEB_ORIGIN`) and loopback ones (`http://localhost:*`, `127.0.0.1`, `[::1]`); others get 403. Allowed origins also get CORS headers.",
    },
    MCP_ALLOWED_HOSTS: {
      type: 'string',
      default: '',
      description:
        "Comma-separated `Host` header values `/mcp` answers besides `BASE_URL`'s host name and the loopback names (DNS rebinding protection; others get 403). `name` allows any port, `name:port` only that one. Set it when a reverse proxy forwards another host name than `BASE_URL`'s.",
    },
  },
  Data: {
    DATABASE_URL: { type: 'string', description: 'A Postgres ≥ 15 to use instead of the embedded one.' },
    LISTKEEPER_DATA_DIR: {
      type: 'string',
      default: './data',
      description:
        'Where the embedded Postgres (and uploads) live. As root, Postgres runs as the `postgres` user, so this folder and every folder above it must be reachable by that user.',
    },
    TRASH_RETENTION_DAYS: { type: 'number', exclusiveMinimum: 0, default: 30, description: 'How long deleted lists and items stay in the trash.' },
  },
  'Accounts and limits': {
    ALLOW_SIGN_UP: {
      type: 'boolean',
      'x-default': '`true` on a loopback `BASE_URL`, else `false`',
      description:
        'Whether anyone may create an account at `/signup`; `false` leaves account creation to the command line (`listkeeper user create`). A server on a public address is closed unless you set it to `true`. Every sign-up answers alike, whether or not the email has an account (SECURITY.md).',
    },
    RATE_LIMIT_PER_MINUTE: {
      type: 'integer',
      minimum: 1,
      default: 60,
      description: 'Requests a minute per token or key (shared by all processes through Postgres). Tests and benchmarks raise it explicitly.',
    },
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: {
      type: 'integer',
      minimum: 1,
      default: 600,
      description: 'Requests a minute per client address, authenticated or not, on every endpoint but `/healthz` and `/readyz` (shared through Postgres).',
    },
    CLIENT_REGISTRATIONS_PER_DAY: {
      type: 'integer',
      minimum: 1,
      default: 20,
      description: 'OAuth dynamic client registrations one address may make a day (metadata is limited to 8 KiB).',
    },
    SIGNIN_MAX_FAILURES_PER_ACCOUNT: {
      type: 'integer',
      minimum: 1,
      default: 10,
      description:
        'Failed sign-ins for one email within 15 minutes before that email is refused until the window is over (whoever asks; the same answer whether or not it has an account).',
    },
    SIGNIN_MAX_FAILURES_PER_ADDRESS: {
      type: 'integer',
      minimum: 1,
      default: 100,
      description: 'Failed sign-ins from one address within a day before that address is refused for the day.',
    },
    BODY_LIMIT_BYTES: { type: 'integer', minimum: 1024, default: 5 * 1024 * 1024, description: 'Largest request body; larger answers 400 `invalid`.' },
    AUTOMATION_DAILY_RUN_LIMIT: {
      type: 'integer',
      minimum: 1,
      default: 20,
      description:
        "Runs of one automation a day, counted from midnight in the person's time zone, scheduled runs included; `run_automation` past it answers 409.",
    },
  },
  'Webhooks, events and jobs': {
    OUTBOUND_ALLOW_PRIVATE: {
      type: 'boolean',
      default: false,
      description:
        '**Local development only.** `true` lets every request the service makes (webhook callbacks, image downloads, automation webhooks) use plain `http` and reach private or loopback addresses (e.g. `http://127.0.0.1:4000/hooks`); the tests use it. Never set it on a server other people can reach: callbacks would then reach your internal network. (It replaced `WEBHOOKS_ALLOW_PRIVATE`, which is no longer read.)',
    },
    WEBHOOK_RETRY_BASE_SECONDS: {
      type: 'integer',
      minimum: 1,
      default: 10,
      description: 'First retry of a failed webhook delivery after about this long; each further retry waits twice as long, with jitter (5 attempts in all).',
    },
    WEBHOOK_TIMEOUT_MS: {
      type: 'integer',
      minimum: 100,
      default: 10000,
      description: 'How long one webhook request may take before it counts as failed (`timeout`).',
    },
    JOB_MAINTENANCE_SECONDS: {
      type: 'integer',
      minimum: 1,
      maximum: 3600,
      default: 120,
      description:
        'How often the job queue looks for jobs a stopped process left running (a delivery cut off by a crash) and retries them, and archives finished jobs. A delivery in flight in a killed process goes out again within three `WEBHOOK_TIMEOUT_MS` plus this.',
    },
    REMINDER_POLL_SECONDS: {
      type: 'integer',
      minimum: 1,
      maximum: 300,
      default: 15,
      description:
        'How often each process looks for task reminders whose time came; a reminder is sent within this many seconds of its time, once across every process.',
    },
    MCP_EVENTS_TTL_SECONDS: {
      type: 'integer',
      minimum: 60,
      default: 86400,
      description: 'Longest lifetime an MCP `events/subscribe` is granted (`refreshBefore`); the client subscribes again before then.',
    },
  },
  Notifications: {
    SMTP_URL: {
      type: 'string',
      description:
        'The mail server notification emails go through: `smtp://user:password@host:587` (STARTTLS when the server offers it) or `smtps://…:465`. Unset, there is no email channel; Web Push and topics work without it (docs/notifications.md). Failed mail is retried on the `WEBHOOK_RETRY_BASE_SECONDS` schedule.',
    },
    SMTP_FROM: {
      type: 'string',
      'x-default': "`listkeeper <listkeeper@<BASE_URL's host>>`",
      description: "The sender of notification emails (`Name <address>`); on an `http` `BASE_URL` its address is also Web Push's contact (VAPID subject).",
    },
  },
  'Images and files': {
    IMAGE_URLS_PER_REQUEST: {
      type: 'integer',
      minimum: 0,
      default: 20,
      description: 'Image URLs (not uploaded bucket paths) one `create_items` or `update_items` call downloads; the others are reported in `imageFailures`.',
    },
    IMAGE_BYTES_PER_REQUEST: { type: 'integer', minimum: 0, default: 50 * 1024 * 1024, description: 'Bytes those downloads may have in all (50 MiB).' },
    IMAGE_SECONDS_PER_REQUEST: { type: 'integer', minimum: 1, default: 30, description: 'Seconds those downloads may take in all.' },
    STORAGE_QUOTA_MB: {
      type: 'integer',
      minimum: 0,
      default: 1024,
      description:
        'Image storage per account (attached images and uploaded slots); `get_context` reports `storage`; uploads and downloads past it are refused. `0` allows no images.',
    },
    S3_BUCKET: {
      type: 'string',
      description:
        "Keep images in this S3-compatible bucket instead of `$LISTKEEPER_DATA_DIR/files`. Uploads and downloads still go through the service's signed `/files/…` URLs.",
    },
    S3_ENDPOINT: { type: 'string', description: "The store's address for S3-compatible services (MinIO, R2, …); unset for AWS S3." },
    S3_REGION: { type: 'string', default: 'us-east-1', description: "The bucket's region." },
    S3_ACCESS_KEY_ID: {
      type: 'string',
      description: "Credentials, with `S3_SECRET_ACCESS_KEY`; unset uses the AWS SDK's default chain (environment, instance role).",
    },
    S3_SECRET_ACCESS_KEY: { type: 'string', description: 'The secret of `S3_ACCESS_KEY_ID`.' },
    S3_PREFIX: { type: 'string', default: '', description: 'Prepended to every object key.' },
    S3_FORCE_PATH_STYLE: { type: 'boolean', 'x-default': '`true` with `S3_ENDPOINT`', description: 'Path-style bucket addressing.' },
  },
  Search: {
    SEARCH_BACKEND: {
      type: 'string',
      enum: ['postgres', 'meilisearch'],
      default: 'postgres',
      description: "Where items are indexed for search: `postgres` (inside the service's database) or `meilisearch` (docs/search.md).",
    },
    MEILI_URL: { type: 'string', description: "Meilisearch's address (e.g. `http://127.0.0.1:7700`); required with `SEARCH_BACKEND=meilisearch`." },
    MEILI_API_KEY: { type: 'string', description: "Meilisearch's master or admin key." },
    EMBEDDINGS: {
      type: 'string',
      enum: ['local', 'openai', 'none'],
      'x-default': '`local` (`openai` when `EMBEDDINGS_URL` is set)',
      description:
        'How text becomes vectors for search by meaning: `local` (a model inside the npm packages, no network), `openai` (any OpenAI-compatible `/v1/embeddings` server), `none` (keyword search only).',
    },
    EMBEDDINGS_URL: {
      type: 'string',
      description:
        'Base URL of the embeddings API, e.g. `http://127.0.0.1:11434/v1` (Ollama) or `https://api.openai.com/v1`; requests go to `$EMBEDDINGS_URL/embeddings`.',
    },
    EMBEDDINGS_MODEL: { type: 'string', description: 'The model name, e.g. `nomic-embed-text` or `text-embedding-3-small`; required with `openai`.' },
    EMBEDDINGS_API_KEY: { type: 'string', description: 'Sent as `Authorization: Bearer …`, when the server wants one.' },
    EMBEDDINGS_DIMENSIONS: {
      type: 'integer',
      minimum: 1,
      'x-default': 'asked from the server',
      description: 'Vector size of the `openai` model; when unset the service embeds one probe text at start to learn it.',
    },
  },
  'Logs and operations': {
    LOG_LEVEL: {
      type: 'string',
      enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      default: 'info',
      description: 'pino log level; every request is logged with its request id.',
    },
    LOG_FORMAT: {
      type: 'string',
      enum: ['auto', 'pretty', 'json'],
      default: 'auto',
      description: '`pretty` (readable lines), `json` (one object a line), or `auto`: pretty on a terminal, JSON otherwise.',
    },
    SHUTDOWN_TIMEOUT_MS: {
      type: 'integer',
      minimum: 0,
      default: 10000,
      description:
        'On SIGTERM the service stops taking connections, answers 503 on `/readyz`, and waits this long for requests in flight before it cuts them off.',
    },
    METRICS_TOKEN: { type: 'string', description: 'When set, `/metrics` asks for `Authorization: Bearer <token>`.' },
  },
} as const;

const schema = {
  type: 'object',
  properties: Object.assign({}, ...Object.values(groups)) as Record<string, object>,
  additionalProperties: true,
};

/** The settings as the service uses them; what each means is its setting's `description` in `groups`. */
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
  rateLimitPerAddressPerMinute: number;
  trustProxy: boolean;
  /** How many proxies in front append to X-Forwarded-For: the client is that many entries from the right (koa maxIpsCount). */
  trustProxyHops: number;
  allowSignUp: boolean;
  bodyLimitBytes: number;
  logLevel: string;
  metricsToken: string | undefined;
  clientRegistrationsPerDay: number;
  /** Failed sign-ins before an email is refused for 15 minutes, and an address for a day. */
  signInMaxFailures: { perAccount: number; perAddress: number };
  shutdownTimeoutMs: number;
  logFormat: 'auto' | 'pretty' | 'json';
  mcpAllowedOrigins: string[];
  mcpAllowedHosts: string[];
  trashRetentionDays: number;
  webhookRetryBaseSeconds: number;
  webhookTimeoutMs: number;
  jobMaintenanceSeconds: number;
  reminderPollSeconds: number;
  mcpEventsTtlSeconds: number;
  automationDailyRunLimit: number;
  /**
   * Development and tests only: let every request the service makes (webhook callbacks, image
   * downloads, automation webhooks) use http and reach private, loopback and link-local
   * addresses, which are refused otherwise (SSRF).
   */
  outboundAllowPrivate: boolean;
  /** The mail server of notification emails and their sender; null: no email channel. */
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

/** Where items are indexed and how text becomes vectors. @see docs/search.md */
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

/** Every setting with its group and schema (type, default, limits, `description`, `x-default`), in the reference's order. */
export function settingsReference(): { group: string; name: string; schema: Record<string, unknown> }[] {
  return Object.entries(groups).flatMap(([group, settings]) => Object.entries(settings).map(([name, schema]) => ({ group, name, schema: { ...schema } })));
}

/** Reads the configuration from `env`; throws one sentence per wrong variable. */
export function loadConfig(env: Env = process.env): Config {
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, keywords: ['x-default'] });
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
