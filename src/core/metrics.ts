/**
 * The service's Prometheus metrics (prom-client), served at /metrics. Counters and histograms
 * are recorded where the work happens; gauges that need the database (outbox lag, queue depth,
 * embedding backlog) are read when Prometheus scrapes, by a collector the composition root
 * installs (src/jobs/metrics.ts).
 * @see docs/deploy.md "Operating it"
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'listkeeper_' });

export const requestDuration = new Histogram({
  name: 'listkeeper_request_duration_seconds',
  help: 'Requests by operation (REST operationId or MCP tool; "other" for pages and files), transport and status.',
  labelNames: ['operation', 'transport', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: 'listkeeper_rate_limit_refusals_total',
  help: 'Requests answered 429 by a rate limit.',
  registers: [registry],
});

export const webhookFailures = new Counter({
  name: 'listkeeper_webhook_failures_total',
  help: 'Webhook delivery attempts that failed, by reason (a status class, timeout, blocked address, ...).',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const searchDuration = new Histogram({
  name: 'listkeeper_search_duration_seconds',
  help: 'Searches, by mode (hybrid, keyword, semantic).',
  labelNames: ['mode'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [registry],
});

/** What the scrape-time collector reads from the database. */
export interface SystemReadings {
  /** Age in seconds of the oldest outbox row not yet handed to its consumer (0 when none). */
  outboxLagSeconds: number;
  /** Jobs waiting or retrying, by queue. */
  queueDepth: Record<string, number>;
  /** Item changes waiting to be indexed (and embedded) for search. */
  embeddingBacklog: number;
}

const outboxLag = new Gauge({ name: 'listkeeper_outbox_lag_seconds', help: 'Age of the oldest undelivered outbox row.', registers: [registry] });
const queueDepth = new Gauge({
  name: 'listkeeper_queue_depth',
  help: 'Jobs waiting or retrying, by queue.',
  labelNames: ['queue'] as const,
  registers: [registry],
});
const embeddingBacklog = new Gauge({ name: 'listkeeper_embedding_backlog', help: 'Item changes waiting to be indexed for search.', registers: [registry] });

/** The background rebuild of the search index (a model change re-embeds every item): items done and to do. */
export const searchReindexItems = new Gauge({
  name: 'listkeeper_search_reindex_items',
  help: 'The running rebuild of the search index: items done (state="done") of all to do (state="total"); 0 when none runs.',
  labelNames: ['state'] as const,
  registers: [registry],
});

let readSystem: (() => Promise<SystemReadings>) | null = null;

/** Installs the function that reads the database-backed gauges at scrape time. */
export function installSystemReader(read: () => Promise<SystemReadings>): void {
  readSystem = read;
}

/** The text Prometheus scrapes. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  if (readSystem) {
    const readings = await readSystem();
    outboxLag.set(readings.outboxLagSeconds);
    queueDepth.reset();
    for (const [queue, depth] of Object.entries(readings.queueDepth)) queueDepth.set({ queue }, depth);
    embeddingBacklog.set(readings.embeddingBacklog);
  }
  return { contentType: registry.contentType, body: await registry.metrics() };
}
