/**
 * Composition root: config → database (embedded Postgres unless DATABASE_URL) → migrations
 * → services (search, jobs, outbox) → OAuth server (keys from the database) → app → listen →
 * warm-up of the search model in the background. Shuts down cleanly on SIGINT and SIGTERM.
 * Started by `main.ts`, the process entry (which starts tracing first when it is wanted).
 */
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { loadConfig } from './core/config.js';
import { openDatabase } from './store/open.js';
import { createApp, createHttpServer } from './app.js';
import { createServices } from './core/services.js';
import { startJobs } from './jobs/queue.js';
import { jobDefinitions } from './jobs/definitions.js';
import { startOutboxLanes } from './jobs/outbox.js';
import { startSequencer } from './jobs/feed-sequencer.js';
import { startReminders } from './jobs/reminders.js';
import { createAuthServer } from './web/oauth/server.js';
import { webhookConsumers } from './jobs/webhooks.js';
import { noticeConsumer } from './jobs/notifications.js';
import { notificationKeys } from './domain/notifications/keys.js';
import { webhookSettings } from './jobs/definitions.js';
import { ENRICH_TOPIC } from './domain/items/enrich.js';
import { enrichConsumer } from './jobs/enrich.js';
import { createSearch } from './search/create.js';
import { searchSync } from './jobs/search-sync.js';
import { startBackgroundReindex } from './jobs/search-reindex.js';
import { readSystem } from './jobs/metrics.js';
import { installSystemReader } from './core/metrics.js';

/** Starts the service; `onStop` runs last when a signal stops it (the tracing flush). */
export async function serve(options: { onStop?: () => Promise<void> } = {}): Promise<void> {
  const config = loadConfig();
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true);
  const log = pino({
    level: config.logLevel,
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' } } } : {}),
  });
  let draining = false;
  // Made on first start (VAPID keys for Web Push, the unsubscribe secret) and kept in the data folder.
  notificationKeys(config.dataDir);
  const database = await openDatabase(config, (line) => log.info(line));
  const services = createServices();
  const search = await createSearch(config.search, database.db);
  services.search = search.index;
  services.jobs = await startJobs(database.url, jobDefinitions({ db: database.db, log, now: services.now, config }), log, {
    maintenanceSeconds: config.jobMaintenanceSeconds,
  });
  // Two lanes: the search index (it waits on the embedding model) and everything else.
  const outbox = startOutboxLanes(
    database.db,
    [
      { item: searchSync(database.db, search.index, log) },
      {
        ...webhookConsumers({ db: database.db, jobs: services.jobs, settings: webhookSettings(config), log }),
        ...noticeConsumer({ db: database.db, jobs: services.jobs, log, now: services.now, config }),
        [ENRICH_TOPIC]: enrichConsumer(database.db, services.now, log),
      },
    ],
    log,
  );
  installSystemReader(() => readSystem(database.db));
  const sequencer = startSequencer(database.db, log);
  const reminders = startReminders(database.db, log, config.reminderPollSeconds * 1000, () => services.now());
  const oauth = await createAuthServer({ db: database.db, config, log });
  const app = createApp({
    db: database.db,
    config,
    services,
    log,
    oauth,
    verifyAccessToken: oauth.verifyAccessToken,
    ready: async () => !draining && (await database.db.raw('select 1')) !== undefined,
  });
  const server: Server = createHttpServer(app).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  log.info({ url: config.baseUrl, port: config.port, host: config.host }, `listkeeper is listening on ${config.baseUrl}`);
  log.info(nextStep(config.baseUrl));
  // After listening, so the model (about a second to load) never delays the start; a search or indexing batch that
  // comes first waits for the same load.
  search.warmUp().then(
    () => log.info({ backend: search.identity.backend, embedder: search.identity.embedder }, 'search is ready'),
    (err: unknown) => log.error({ err }, 'the search embedder failed to load; searches and indexing will retry it'),
  );
  // Items saved before search indexed them, or an index built with another backend or embedder: rebuilt meanwhile.
  const rebuild = startBackgroundReindex(database.db, search.index, search.identity, log, { embedderOf: search.embedderOf });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing the requests in flight');
    // Drain: /readyz answers 503 so a proxy stops sending, no new connection is taken, idle
    // keep-alive connections close, and requests in flight finish (up to SHUTDOWN_TIMEOUT_MS).
    draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const timedOut = await Promise.race([closed.then(() => false), sleep(config.shutdownTimeoutMs).then(() => true)]);
    clearInterval(idle);
    if (timedOut) {
      log.warn({ timeoutMs: config.shutdownTimeoutMs }, 'requests still running at the shutdown timeout were cut off');
      server.closeAllConnections();
    }
    await rebuild.stop();
    await outbox.stop();
    await sequencer.stop();
    await reminders.stop();
    await services.jobs?.stop();
    // Before the database, once nothing indexes any more: the model's worker finishes the batch (or the load) in
    // hand and releases the model; a process that exits in the middle of a native model's load aborts.
    await search.close();
    await database.close();
    log.info('stopped');
    await options.onStop?.().catch((err: unknown) => log.warn({ err }, 'flushing traces failed'));
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/** The one line after start that says what to do next. */
function nextStep(baseUrl: string): string {
  return `Next: open ${baseUrl}/signup to create an account (or run 'listkeeper user create --email you@example.com'), then 'listkeeper apikey create --email you@example.com' for a key; API reference at ${baseUrl}/docs. For the command line and the README's examples, in another shell: export LISTKEEPER_URL=${baseUrl}`;
}
