/** Opens the service's database: DATABASE_URL when set, else an embedded Postgres in the data folder. */
import path from 'node:path';
import type { Knex } from 'knex';
import type { Config } from '../core/config.js';
import { createDb, migrate } from './db.js';
import { attachRunningPostgres, startEmbeddedPostgres } from './embedded/index.js';

export { MissingClusterError } from './embedded/index.js';

export interface OpenDatabase {
  db: Knex;
  url: string;
  close(): Promise<void>;
}

/**
 * Starts or connects to Postgres and applies pending migrations. With `attach`, an embedded
 * cluster that another process (the running server) already serves is used as it is. With
 * `create: false`, no embedded cluster is ever initialised: none in the data folder throws
 * MissingClusterError (the server creates it; the CLI only uses it).
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  log: (line: string) => void = () => undefined,
  options: { attach?: boolean; create?: boolean } = {},
): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | null = null;
  if (!url && options.attach) url = await attachRunningPostgres(path.join(config.dataDir, 'pg'));
  if (!url) {
    const embedded = await startEmbeddedPostgres({ dataDir: path.join(config.dataDir, 'pg'), log, ...(options.create === false ? { create: false } : {}) });
    url = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const db = createDb(url);
  try {
    const applied = await migrate(db);
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
  } catch (err) {
    await db.destroy();
    if (stopEmbedded) await stopEmbedded();
    throw err;
  }
  return {
    db,
    url,
    close: async () => {
      await db.destroy();
      if (stopEmbedded) await stopEmbedded();
    },
  };
}
