/**
 * Jest globalSetup: provides ONE Postgres server for the whole test run and a template database for
 * createTestDatabase (test/support/db.ts).
 *
 * - Default: starts an embedded cluster in <rootDir>/.tmp/test-pg, deleted first so every run starts fresh
 *   (Postgres' own log stays in .tmp/test-pg/postgres.log for after-the-fact reading).
 * - DATABASE_URL_TEST=postgres://user:pass@host:port/db: uses that server instead; the user needs CREATEDB.
 *   Only databases named lk_tpl_<run>/lk_test_<run>_* are created there, and globalTeardown drops them again.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import Module from 'node:module';
import path from 'node:path';
import type { GlobalConfig } from 'jest';
import type * as EmbeddedModule from '../../src/store/embedded/index.js';
import type * as DbModule from './db.js';

// Jest loads globalSetup/globalTeardown with require() through a CommonJS transform hook, not as ESM, and that
// path ignores moduleNameMapper (jestjs/jest#11644), so `import … from './db.js'` finds no file. Requiring the .ts
// files themselves goes through the same transform; the type-only imports above keep them type-checked.
const { startEmbeddedPostgres, runningPostmasterPid, REQUIRED_EXTENSIONS } = requireWithTsSiblings<typeof EmbeddedModule>('../../src/store/embedded/index.ts');
const { TEST_ENV, testDatabasePrefix, urlForDatabase, withClient } = require('./db.ts') as typeof DbModule;

/**
 * require() for a .ts module that imports its neighbours as NodeNext wants them written (`./port.js`): Node's
 * CommonJS resolver looks for port.js only, so while the module loads, a relative `.js` request that finds no file
 * is retried as `.ts`. The override is undone before anything else can resolve through it.
 */
function requireWithTsSiblings<T>(specifier: string): T {
  const loader = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
  const resolveFilename = loader._resolveFilename;
  loader._resolveFilename = function resolveTsSibling(this: unknown, request: string, ...rest: unknown[]): string {
    try {
      return resolveFilename.call(this, request, ...rest);
    } catch (error) {
      if (!/^\.\.?\/.*\.js$/.test(request)) throw error;
      return resolveFilename.call(this, `${request.slice(0, -'.js'.length)}.ts`, ...rest);
    }
  };
  try {
    return require(specifier) as T;
  } finally {
    loader._resolveFilename = resolveFilename;
  }
}

/** What globalTeardown needs; it runs in the same process, so globalThis carries it. */
export interface TestServerHandle {
  teardown(): Promise<void>;
}

declare global {
  var __listkeeperTestServer: TestServerHandle | undefined;
}

/** Starts (or adopts) the test server, prepares the template and publishes both through process.env for the workers. */
export default async function globalSetup(globalConfig: GlobalConfig): Promise<void> {
  const say = (line: string): void => void process.stderr.write(`[test-pg] ${line}\n`);
  const runId = randomBytes(3).toString('hex');
  const template = `lk_tpl_${runId}`;
  const external = process.env.DATABASE_URL_TEST;

  let adminUrl: string;
  let stopServer: () => Promise<void> = async () => undefined;
  if (external) {
    adminUrl = external;
    say(`using DATABASE_URL_TEST (${new URL(external).host})`);
  } else {
    const dataDir = path.join(globalConfig.rootDir, '.tmp', 'test-pg');
    // Deleting the files of a live server (a concurrent run, or one whose jest was killed) would break it or orphan it.
    const leftover = await runningPostmasterPid(dataDir);
    if (leftover !== undefined) {
      throw new Error(
        `Postgres (pid ${leftover}) still runs on ${dataDir}: another test run, or one killed mid-way. Stop it (kill -INT ${leftover}) and retry.`,
      );
    }
    await fs.rm(dataDir, { recursive: true, force: true });
    const server = await startEmbeddedPostgres({ dataDir, log: say });
    adminUrl = urlForDatabase(server.url, 'postgres');
    stopServer = server.stop;
  }

  try {
    await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(template)} TEMPLATE template0`));
    await withClient(urlForDatabase(adminUrl, template), async (c) => {
      for (const ext of REQUIRED_EXTENSIONS) await c.query(`CREATE EXTENSION IF NOT EXISTS ${c.escapeIdentifier(ext)}`);
    });
  } catch (error) {
    await stopServer();
    throw error;
  }

  process.env[TEST_ENV.url] = adminUrl;
  process.env[TEST_ENV.template] = template;
  process.env[TEST_ENV.runId] = runId;
  globalThis.__listkeeperTestServer = {
    async teardown(): Promise<void> {
      // An embedded cluster is thrown away whole; a shared server must get its databases back.
      if (external) await dropRunDatabases(adminUrl, template, testDatabasePrefix(runId));
      await stopServer();
    },
  };
}

/** Drops the template and any test database a crashed test file left behind. */
async function dropRunDatabases(adminUrl: string, template: string, prefix: string): Promise<void> {
  await withClient(adminUrl, async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = $1 OR starts_with(datname, $2)`, [template, prefix]);
    for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(datname)} WITH (FORCE)`);
  });
}
