/** Jest globalTeardown: undoes globalSetup (stops the embedded cluster, or drops this run's databases on DATABASE_URL_TEST). */
export default async function globalTeardown(): Promise<void> {
  const handle = globalThis.__listkeeperTestServer;
  globalThis.__listkeeperTestServer = undefined;
  await handle?.teardown();
}
