import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { operations } from '../generated/api.js';
import type { PersonOperationId } from '../generated/operations.js';
import type { Services } from './services.js';
import type { GrantLevel } from './operation-spec.js';

/**
 * What a connection may do when it holds less than the whole person: a level (read only; no
 * deletes; everything) and, optionally, chosen lists ("and lists I make later": also the
 * person's lists made after `since`).
 * @see docs/auth.md "Grants"
 */
export interface Grant {
  level: GrantLevel;
  /** The lists it reaches, or null for every list. */
  lists: string[] | null;
  later: boolean;
  /** When the grant was made or last changed (ISO), the start of "later". */
  since: string;
}

/** Who is calling: the person, or a connection of theirs narrowed by a grant. */
export interface Principal {
  userId: string;
  /** `web`: the person on their own pages; `cli`: the command line on the server's database, for the account it names. Neither is a connection. */
  via: 'apiKey' | 'oauth' | 'web' | 'cli';
  /** The OAuth client's name, or null for an API key or the person: written to the activity log. */
  clientName: string | null;
  /** Identifies the token for rate limiting and MCP event subscriptions. */
  tokenId: string;
  /** The connection's grant; absent, the principal acts as the whole person. */
  grant?: Grant;
}

/** Whether the caller is the person on their own surface (web pages, command line) rather than a connection (API key, OAuth app). */
export function onPersonSurface(principal: Principal): boolean {
  return principal.via === 'web' || principal.via === 'cli';
}

/** What every operation receives besides its input. */
export interface OperationContext {
  principal: Principal;
  db: Knex;
  config: Config;
  services: Services;
  log: Logger;
  /**
   * The lists the principal may reach when its grant names some (computed once per call by
   * dispatch, `domain/accounts/grants.ts`); absent, every list of the person's.
   */
  reach?: readonly string[];
}

/** An operation of the API (the `webhook_…` entries of the generated types are the events it sends, not operations). */
export type OperationId = Exclude<keyof operations, `webhook_${string}`>;
/** An operation served as REST (and MCP, with a tool): openapi.yaml's paths. */
export type PublicOperationId = Exclude<OperationId, PersonOperationId>;
export type { PersonOperationId };

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
