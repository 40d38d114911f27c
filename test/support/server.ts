/**
 * A running listkeeper on a fresh test database, for tests that go through HTTP, the SDK
 * and an MCP client. Every server a test opens is closed in its afterAll.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Knex } from 'knex';
import { afterAll, beforeAll } from '@jest/globals';
import { pino } from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApp, createHttpServer } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/core/config.js';
import { createServices, type Services } from '../../src/core/services.js';
import { migrate } from '../../src/store/db.js';
import { createUser } from '../../src/domain/accounts/accounts.js';
import { createApiKey } from '../../src/domain/accounts/api-keys.js';
import { createAuthServer, type AuthServer } from '../../src/web/oauth/server.js';
import { hashPassword } from '../../src/domain/accounts/passwords.js';
import { startOutboxPump, type OutboxPump } from '../../src/jobs/outbox.js';
import { createSearch, type Search } from '../../src/search/create.js';
import { searchSync } from '../../src/jobs/search-sync.js';
import { createClient, type ListkeeperClient } from '../../sdk/src/index.js';
import type { OperationContext, Principal } from '../../src/core/context.js';
import { createTestDatabase } from './db.js';

export interface TestAccount {
  userId: string;
  email: string;
  key: string;
  sdk: ListkeeperClient;
  principal: Principal;
}

export interface TestServer {
  baseUrl: string;
  db: Knex;
  /** The test database's connection URL. */
  dbUrl: string;
  config: Config;
  services: Services;
  /** The OAuth authorization server of the app. */
  oauth: AuthServer;
  /**
   * Creates an account with an API key and an SDK client on it (and a web password, if given).
   * Its email is unique to the process unless `email` names one (the screenshots' account).
   */
  account(name?: string, password?: string, email?: string): Promise<TestAccount>;
  /** An MCP client connected with the account's key. */
  mcp(account: TestAccount): Promise<Client>;
  /** The operation context of an account, to call operations directly. */
  context(account: TestAccount): OperationContext;
  /** The operation context of the person on their own surface (web pages, or the command line): what the person's operations need. */
  personContext(account: TestAccount, via?: 'web' | 'cli'): OperationContext;
  /** With the `search` option: the outbox pump feeding the search index; `await pump.drain()` indexes every write so far. */
  pump?: OutboxPump;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /**
   * Builds services.search from the configuration (SEARCH_BACKEND, EMBEDDINGS, ... in `env`) as serve.ts does, and
   * runs the outbox pump with the search consumer. Its timer is slow, so tests index when they call pump.drain().
   */
  search?: boolean;
}

let counter = 0;

/** One app on a port, without the database around it (see serveApp). */
export interface TestApp {
  baseUrl: string;
  config: Config;
  services: Services;
  oauth: AuthServer;
  close(): Promise<void>;
}

/**
 * Runs one app (with its OAuth server) on a random port over an existing database. The
 * port is bound first, so BASE_URL — the OAuth issuer and token audience — is known when
 * the app is built. Rate limits are raised unless given.
 */
export async function serveApp(db: Knex, env: Record<string, string> = {}): Promise<TestApp> {
  // The app is attached once BASE_URL is known; the server has the production limits from the start.
  const server: Server = createHttpServer();
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '100000',
    CLIENT_REGISTRATIONS_PER_DAY: '100000',
    BASE_URL: baseUrl,
    ...env,
  });
  const services = createServices();
  // Every process has a search index, as in serve.ts; keyword-only here, so tests that do not
  // test search load no model (startTestServer's `search` option puts the configured one in).
  services.search = (await createSearch({ ...config.search, embeddings: { kind: 'none' } }, db)).index;
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const oauth = await createAuthServer({ db, config, log });
  const app = createApp({ db, config, services, log, validateResponses: true, oauth, verifyAccessToken: oauth.verifyAccessToken });
  server.on('request', app.callback());
  return {
    baseUrl,
    config,
    services,
    oauth,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Starts a server on a random port with a fresh database; rate limits raised unless given. */
export async function startTestServer(env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const database = await createTestDatabase();
  await migrate(database.knex);
  const served = await serveApp(database.knex, env);
  const { baseUrl, config, services } = served;
  const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  let pump: OutboxPump | undefined;
  let search: Search | undefined;
  if (options.search) {
    search = await createSearch(config.search, database.knex);
    services.search = search.index;
    pump = startOutboxPump(database.knex, { item: searchSync(database.knex, search.index, log) }, log, 60_000);
  }
  const clients: Client[] = [];

  return {
    baseUrl,
    db: database.knex,
    dbUrl: database.url,
    config,
    services,
    oauth: served.oauth,
    ...(pump ? { pump } : {}),
    async account(name = 'Ada', password?: string, fixedEmail?: string) {
      const email = fixedEmail ?? `${name.toLowerCase()}-${process.pid}-${++counter}@example.com`;
      const user = await createUser(database.knex, { email, name, timezone: 'Europe/London', passwordHash: password ? await hashPassword(password) : null });
      const key = await createApiKey(database.knex, user.id);
      return {
        userId: user.id,
        email,
        key,
        sdk: createClient({ baseUrl, token: key }),
        principal: { userId: user.id, via: 'apiKey', clientName: null, tokenId: `key:${user.id}` },
      };
    },
    async mcp(account) {
      const client = new Client({ name: 'listkeeper-tests', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${account.key}` } } });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    context(account) {
      return { principal: account.principal, db: database.knex, config, services, log };
    },
    personContext(account, via = 'web') {
      return { principal: { userId: account.userId, via, clientName: null, tokenId: `${via}:${account.userId}` }, db: database.knex, config, services, log };
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await pump?.stop();
      // A model call still running when the tests end would keep jest's worker process alive.
      await search?.close();
      await served.close();
      await database.drop();
    },
  };
}

/** What useTestServer gives a suite: the server and its accounts, readable once the suite's beforeAll ran. */
export interface SuiteServer {
  server: TestServer;
  /** The first account (`Ada` unless `accounts` says otherwise). */
  ada: TestAccount;
  /** Every account made for the suite, by name (filled in by the hook). */
  accounts: Record<string, TestAccount>;
  /** One of the suite's accounts by name, usable as `ada` is. */
  account(name: string): TestAccount;
  /** The operation context of the first account. */
  ctx(): OperationContext;
}

/**
 * Starts one test server for the surrounding `describe` (in a `beforeAll`, closed in an
 * `afterAll`) with a password-less account for each name in `accounts` (default `['Ada']`).
 * The returned `server` and `ada` stand for the real ones, so a suite writes
 * `const { server, ada } = useTestServer();` and uses them in its tests and later hooks as it
 * would the objects themselves; reading them before the hook ran throws. jest runs `afterAll`
 * hooks in the order they were declared, so what a suite must stop before the server closes
 * goes in `beforeClose`.
 */
export function useTestServer(
  options: {
    /** The server's settings, or a function giving them when the hook runs (after the suite's earlier hooks started what they name). */
    env?: Record<string, string> | (() => Record<string, string>);
    accounts?: string[];
    /** Runs before the server closes: stop what the suite started on it (job queues, receivers). */
    beforeClose?: () => Promise<unknown>;
  } & TestServerOptions = {},
): SuiteServer {
  const { env = {}, accounts: names = ['Ada'], beforeClose, ...serverOptions } = options;
  let started: TestServer | undefined;
  const made: Record<string, TestAccount> = {};
  beforeAll(async () => {
    started = await startTestServer(typeof env === 'function' ? env() : env, serverOptions);
    for (const name of names) made[name] = await started.account(name);
  });
  afterAll(async () => {
    if (started) await beforeClose?.();
    await started?.close();
  });
  const server = standIn(() => started, 'the test server');
  const ada = standIn(() => made[names[0]!], `the account ${names[0]}`);
  return { server, ada, accounts: made, account: (name) => standIn(() => made[name], `the account ${name}`), ctx: () => server.context(ada) };
}

/** An object that forwards every access to the one `current` returns, once there is one (a suite's server, account or client made in a hook). */
export function standIn<T extends object>(current: () => T | undefined, what: string): T {
  const target = (): T => {
    const value = current();
    if (!value) throw new Error(`${what} is read before useTestServer's beforeAll started it; read it inside a test or a later hook.`);
    return value;
  };
  return new Proxy({} as T, {
    // Values as they are: the test server's methods are closures, and `db` is a knex function with properties.
    get: (_, prop) => Reflect.get(target(), prop),
    set: (_, prop, value) => Reflect.set(target(), prop, value),
    has: (_, prop) => Reflect.has(target(), prop),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, prop) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), prop);
      return descriptor ? { ...descriptor, configurable: true } : undefined;
    },
  });
}
