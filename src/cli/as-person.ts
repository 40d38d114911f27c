/**
 * The admin commands that name an account (`--email`) act as that person: they call the
 * person's operations through dispatch, with a principal of their own (`cli`), so a write from
 * the command line meets the checks, the activity log and the events of the same write on the
 * web pages. Commands that act for no one person (creating an account, shares, the OAuth keys,
 * migrations, the search index) are the operator's (ARCHITECTURE.md, "One road for every write").
 */
import type { Knex } from 'knex';
import { pino } from 'pino';
import { loadConfig } from '../core/config.js';
import type { OperationContext, OperationId, OpInput, OpOutput } from '../core/context.js';
import { createServices } from '../core/services.js';
import { call } from '../operations/dispatch.js';

/** The operation context of the account `userId`, on the command line. */
export function personContext(db: Knex, userId: string): OperationContext {
  return {
    principal: { userId, via: 'cli', clientName: null, tokenId: `cli:${userId}` },
    db,
    config: loadConfig(),
    services: createServices(),
    // The command says what happened on its own output; the service's log is not for a terminal.
    log: pino({ level: 'silent' }),
  };
}

/** Calls an operation as the account `userId`. */
export function callAsPerson<K extends OperationId>(db: Knex, userId: string, operationId: K, input: OpInput<K>): Promise<OpOutput<K>> {
  return call(personContext(db, userId), operationId, input);
}
