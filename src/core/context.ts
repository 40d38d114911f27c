import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { operations } from '../generated/api.js';
import type { Services } from './services.js';

/** Who is calling: always the whole person (scopes never narrow a token). */
export interface Principal {
  userId: string;
  /** `web`: the person on their own pages, not a connection. */
  via: 'apiKey' | 'oauth' | 'web';
  /** The OAuth client's name, or null for an API key or the person: written to the activity log. */
  clientName: string | null;
  /** Identifies the token for rate limiting and MCP event subscriptions. */
  tokenId: string;
}

/** What every operation receives besides its input. */
export interface OperationContext {
  principal: Principal;
  db: Knex;
  config: Config;
  services: Services;
  log: Logger;
}

/** An operation of the API (the `webhook_…` entries of the generated types are the events it sends, not operations). */
export type OperationId = Exclude<keyof operations, `webhook_${string}`>;

type PathOf<O> = O extends { parameters: { path: infer P } } ? (P extends object ? P : object) : object;
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? (Q extends object ? Q : object) : object;
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? (B extends object ? B : object) : object;
type SuccessOf<R> = R extends { 200: { content: { 'application/json': infer T } } }
  ? T
  : R extends { 201: { content: { 'application/json': infer T } } }
    ? T
    : R extends { 202: { content: { 'application/json': infer T } } }
      ? T
      : R extends { 200: { content: { 'text/csv': infer T } } }
        ? T
        : never;

/** An operation's input: path and query parameters and body fields side by side, as MCP sends them. */
export type OpInput<K extends OperationId> = PathOf<operations[K]> & QueryOf<operations[K]> & BodyOf<operations[K]>;
/** An operation's success body. */
export type OpOutput<K extends OperationId> = SuccessOf<operations[K]['responses']>;

export type Handler<K extends OperationId> = (ctx: OperationContext, input: OpInput<K>) => Promise<OpOutput<K>>;
