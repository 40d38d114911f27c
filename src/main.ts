/**
 * Composition root: config → database (embedded Postgres unless DATABASE_URL) → migrations
 * → services → app → listen. Shuts down cleanly on SIGINT and SIGTERM.
 */
import type { Server } from 'node:http';
import { pino } from 'pino';
import { loadConfig } from './config.js';
import { openDatabase } from './store/open.js';
import { createApp, createHttpServer } from './http/app.js';
import { createServices } from './services.js';
import { startJobs } from './jobs/queue.js';
import { jobDefinitions } from './jobs/definitions.js';
import { startOutboxPump } from './jobs/outbox.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel });
  const database = await openDatabase(config, (line) => log.info(line));
  const services = createServices();
  services.jobs = await startJobs(database.url, jobDefinitions({ db: database.db, log, now: services.now }), log);
  const outbox = startOutboxPump(database.db, {}, log);
  const app = createApp({ db: database.db, config, services, log, ready: async () => (await database.db.raw('select 1')) !== undefined });
  const server: Server = createHttpServer(app).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  log.info({ url: config.baseUrl, port: config.port, host: config.host }, `listkeeper is listening on ${config.baseUrl}`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close();
    server.closeAllConnections();
    await outbox.stop();
    await services.jobs?.stop();
    await database.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`listkeeper could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
