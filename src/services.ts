import type { Jobs } from './jobs/queue.js';
import type { SearchIndex } from './search/types.js';

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
