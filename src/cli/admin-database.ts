/**
 * The server's database, for the admin commands: found with the server's own settings
 * (DATABASE_URL, else the embedded Postgres under LISTKEEPER_DATA_DIR, default ./data), attached
 * to when the server runs, started for the command when it does not. Never created: only the
 * server initialises a cluster, so a command run in the wrong folder says where it looked
 * instead of making a second, empty database there.
 */
import path from 'node:path';
import { loadConfig } from '../core/config.js';
import { MissingClusterError, openDatabase, type OpenDatabase } from '../store/open.js';
import { CliError } from './output.js';

/** Opens the server's database, runs `work`, and closes it again. */
export async function withDatabase(work: (db: OpenDatabase) => Promise<void>): Promise<void> {
  const config = loadConfig();
  let database: OpenDatabase;
  try {
    database = await openDatabase(config, (line) => process.stderr.write(`${line}\n`), { attach: true, create: false });
  } catch (err) {
    if (err instanceof MissingClusterError) throw new CliError(noDataSentence(config.dataDir));
    throw err;
  }
  try {
    await work(database);
  } finally {
    await database.close();
  }
}

/** Where the command looked, why there, and how to point it at the server's data. */
export function noDataSentence(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const setting = env.LISTKEEPER_DATA_DIR
    ? `LISTKEEPER_DATA_DIR=${env.LISTKEEPER_DATA_DIR}`
    : `LISTKEEPER_DATA_DIR is not set, so ./data in the current folder, ${path.dirname(dataDir)}`;
  return (
    `No listkeeper data in ${dataDir} (${setting}). ` +
    'Run the command from the folder the server runs in, or set LISTKEEPER_DATA_DIR (or DATABASE_URL) to what the server uses. ' +
    'Nothing was created: the server makes its database on its first start.'
  );
}
