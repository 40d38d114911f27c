/**
 * The lists a call may reach, when its connection's grant names some (docs/auth.md "Grants"):
 * computed once per call by dispatch (domain/accounts/grants.ts `reachOf`) and held for the
 * call's whole run, so every read path of the domain (list sets, single lists, items, trash,
 * labels, the feed, exports, chats) filters by the same set without each operation and
 * adapter passing it down. Outside a call with such a grant every list of the person's is
 * reached, as before.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

const current = new AsyncLocalStorage<ReadonlySet<string>>();

/** Runs `work` reaching only `lists` (undefined: every list). */
export function withReach<T>(lists: readonly string[] | undefined, work: () => Promise<T>): Promise<T> {
  return lists ? current.run(new Set(lists), work) : work();
}

/** The lists the running call reaches, or undefined for every list. */
export function currentReach(): ReadonlySet<string> | undefined {
  return current.getStore();
}

/** Whether the running call reaches list `listId`. */
export function inReach(listId: string): boolean {
  return current.getStore()?.has(listId) ?? true;
}

/** The rows whose list (`listOf`) the running call reaches. */
export function reachable<T>(rows: T[], listOf: (row: T) => string): T[] {
  const reach = current.getStore();
  return reach ? rows.filter((row) => reach.has(listOf(row))) : rows;
}

/** Adds to a query that its rows' `column` (a list id) is among the lists the running call reaches. */
export function whereInReach<Q extends Knex.QueryBuilder>(query: Q, column: string): Q {
  const reach = current.getStore();
  return reach ? (query.whereIn(column, [...reach]) as Q) : query;
}
