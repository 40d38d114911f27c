import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

/** Environment variables through which globalSetup hands the test server to the test workers. */
export const TEST_ENV = {
  /** Admin (superuser or CREATEDB) URL of the server the test databases live on. */
  url: 'LISTKEEPER_TEST_PG_URL',
  /** Database cloned for every test database; it already has the required extensions. */
  template: 'LISTKEEPER_TEST_PG_TEMPLATE',
  /** Per-run tag in database names, so leftovers of this run can be found and dropped. */
  runId: 'LISTKEEPER_TEST_RUN_ID',
} as const;

/** A fresh database for one test file. */
export interface TestDatabase {
  /** Connection URL of this database. */
  url: string;
  /** Knex instance bound to this database. */
  knex: Knex;
  /** Destroys the knex pool and drops the database; safe to call more than once. */
  drop(): Promise<void>;
}

/** Prefix of every test database created in the run tagged runId. */
export function testDatabasePrefix(runId: string): string {
  return `lk_test_${runId}_`;
}

/** Returns url with its database name replaced. */
export function urlForDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

/** Runs fn with a short-lived client on the admin URL. */
export async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates a uniquely named database cloned from the run's template, so parallel test files never share state. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env[TEST_ENV.url];
  const template = process.env[TEST_ENV.template];
  const runId = process.env[TEST_ENV.runId];
  if (!adminUrl || !template || !runId) {
    throw new Error(`${TEST_ENV.url} is not set: run the tests through jest.config.js, whose globalSetup provides the server.`);
  }
  const worker = process.env.JEST_WORKER_ID ?? '0';
  const name = `${testDatabasePrefix(runId)}w${worker}_${randomBytes(4).toString('hex')}`;
  await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)} TEMPLATE ${c.escapeIdentifier(template)}`));
  const url = urlForDatabase(adminUrl, name);
  const knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 4 } });
  let dropping: Promise<void> | undefined;
  return {
    url,
    knex,
    drop: () => (dropping ??= dropTestDatabase(adminUrl, name, knex)),
  };
}

/** FORCE ends connections a test left open (e.g. a pg.Client it forgot to end). */
async function dropTestDatabase(adminUrl: string, name: string, knex: Knex): Promise<void> {
  await knex.destroy();
  await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`));
}
