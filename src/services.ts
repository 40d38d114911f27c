/**
 * Long-lived parts the operations use besides the database. Grows as search, jobs and
 * uploads land; kept in one object so tests can build a service set without a server.
 */
export interface Services {
  /** Milliseconds since the epoch; replaced in tests that need a fixed clock. */
  now(): Date;
}

/** The default service set. */
export function createServices(): Services {
  return { now: () => new Date() };
}
