import pg from 'pg';
import { HOST } from './port.js';

/** Name of the application database created inside the embedded cluster. */
export const APP_DATABASE = 'listkeeper';
/** Extensions the store relies on; created in the application database on every start. */
export const REQUIRED_EXTENSIONS = ['pg_trgm', 'unaccent'] as const;

export const SUPERUSER = 'postgres';

/** Builds a connection URL for the embedded superuser. */
export function connectionUrl(port: number, password: string, database: string): string {
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@${HOST}:${port}/${encodeURIComponent(database)}`;
}

/** Creates the application database if missing and the extensions in it; idempotent, so run on every start. */
export async function prepareAppDatabase(conn: { port: number; password: string }): Promise<void> {
  const admin = new pg.Client({ host: HOST, port: conn.port, user: SUPERUSER, password: conn.password, database: 'postgres' });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [APP_DATABASE]);
    if (found.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(APP_DATABASE)} TEMPLATE template0`).catch((error: unknown) => {
        // A concurrent starter may have created it in between.
        if ((error as { code?: string }).code !== '42P04') throw error;
      });
    }
  } finally {
    await admin.end();
  }
  const app = new pg.Client({ host: HOST, port: conn.port, user: SUPERUSER, password: conn.password, database: APP_DATABASE });
  await app.connect();
  try {
    for (const ext of REQUIRED_EXTENSIONS) {
      await app.query(`CREATE EXTENSION IF NOT EXISTS ${app.escapeIdentifier(ext)}`);
    }
  } finally {
    await app.end();
  }
}
