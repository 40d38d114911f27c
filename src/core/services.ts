import type PgBoss from 'pg-boss';
import type { Knex } from 'knex';
import type { SearchIndex } from './search-index.js';

/** The durable job queue (src/jobs/queue.ts): what operations and the domain may ask of it. */
export interface Jobs {
  send(name: string, data: object, options?: PgBoss.SendOptions): Promise<string | null>;
  /** Enqueues in the caller's knex transaction: the job exists exactly when the transaction commits. */
  sendInTransaction(trx: Knex, name: string, data: object, options?: PgBoss.SendOptions): Promise<string | null>;
  stop(): Promise<void>;
}

/**
 * Long-lived parts the operations use besides the database. Grows as search, jobs and
 * uploads land; kept in one object so tests can build a service set without a server.
 */
export interface Services {
  /** The current time; replaced in tests that need a fixed clock. */
  now(): Date;
  /** The durable job queue, when this process runs one. */
  jobs?: Jobs;
  /** The search index (src/search/create.ts); the outbox consumer of src/search/sync.ts keeps it current. */
  search?: SearchIndex;
}

/** The default service set. */
export function createServices(): Services {
  return { now: () => new Date() };
}
