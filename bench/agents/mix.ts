/**
 * The agents' mix (bench/README.md, "Many agents"): what one simulated agent sends next, to
 * listkeeper (REST, or MCP tools/call for half of the agents) or to the ceiling
 * (bench/ceiling.ts: the same operation as its one bare statement).
 */
import type { LoadAgent, Planned } from './load.js';

/** Shares of the mix, in percent. */
export const MIX = [
  ['list_items', 35],
  ['feed', 20],
  ['get_item', 15],
  ['write', 15],
  ['query_items', 5],
  ['search', 5],
  ['chat', 5],
] as const;
export type MixOperation = (typeof MIX)[number][0];

/** One simulated agent's account: its token (an API key or an OAuth access token) and its own items. */
export interface AgentAccount {
  userId: string;
  token: string;
  via: 'apiKey' | 'oauth';
  mcp: boolean;
  tasksListId: string;
  itemIds: string[];
  /** The tasks list's last feed position when the account was made: both sides start polling caught up. */
  feedSeq: string;
}

const WORDS = ['invoice', 'garden', 'passport', 'dentist', 'budget', 'flight', 'report', 'kitchen', 'meeting', 'insurance'];
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

function chooseOperation(): MixOperation {
  let roll = Math.random() * 100;
  for (const [op, share] of MIX) {
    if ((roll -= share) < 0) return op;
  }
  return 'list_items';
}

const titles = (n: number) => Array.from({ length: n }, () => ({ title: `${pick(WORDS)} ${pick(WORDS)} ${Math.floor(Math.random() * 1e6)}` }));
const writeSize = () => 1 + Math.floor(Math.random() * 20);
/** Half the writes create 1–20 items, half update 1–20 of the agent's own. */
const creates = () => Math.random() < 0.5;
function someIds(account: AgentAccount, n: number): string[] {
  const start = Math.floor(Math.random() * Math.max(1, account.itemIds.length - n));
  return account.itemIds.slice(start, start + n);
}
const okJson = (status: number) => status < 300;

/** What one listkeeper agent keeps between requests: its account, its headers (built once) and its feed cursor. */
interface AgentState {
  account: AgentAccount;
  auth: Record<string, string>;
  json: Record<string, string>;
  mcpHeaders: Record<string, string>;
  feedCursor: string;
}

/** The REST request for `op`. */
function restPlan(state: AgentState, op: MixOperation): Planned {
  const { account, auth, json } = state;
  const readCursor = (status: number, body: string) => {
    if (status !== 200) return false;
    const page = JSON.parse(body) as { nextChangedSince?: string; structuredContent?: { nextChangedSince?: string } };
    const next = page.nextChangedSince;
    if (next) state.feedCursor = next;
    return true;
  };
  switch (op) {
    case 'list_items':
      return { operation: op, method: 'GET', path: '/api/v1/items?listId=tasks&limit=50', headers: auth, onAnswer: okJson };
    case 'feed':
      return {
        operation: op,
        method: 'GET',
        path: `/api/v1/items?listId=tasks&limit=200&changedSince=${encodeURIComponent(state.feedCursor)}`,
        headers: auth,
        onAnswer: readCursor,
      };
    case 'get_item':
      return { operation: op, method: 'GET', path: `/api/v1/items/${pick(account.itemIds)}`, headers: auth, onAnswer: okJson };
    case 'write':
      return creates()
        ? {
            operation: 'create_items',
            method: 'POST',
            path: '/api/v1/items',
            headers: json,
            body: JSON.stringify({ listId: 'tasks', items: titles(writeSize()) }),
            onAnswer: okJson,
          }
        : {
            operation: 'update_items',
            method: 'PATCH',
            path: '/api/v1/items',
            headers: json,
            body: JSON.stringify({ items: someIds(account, writeSize()).map((itemId) => ({ itemId, title: titles(1)[0]!.title })) }),
            onAnswer: okJson,
          };
    case 'query_items':
      return {
        operation: op,
        method: 'POST',
        path: '/api/v1/items/query',
        headers: json,
        body: JSON.stringify({ listId: 'tasks', mode: 'count', where: [{ property: 'status', op: 'eq', value: 'todo' }] }),
        onAnswer: okJson,
      };
    case 'search':
      return { operation: op, method: 'GET', path: `/api/v1/search?q=${pick(WORDS)}&limit=10`, headers: auth, onAnswer: okJson };
    case 'chat':
      return {
        operation: op,
        method: 'POST',
        path: `/api/v1/items/${pick(account.itemIds)}/messages`,
        headers: json,
        body: JSON.stringify({ message: `Done: ${pick(WORDS)}.`, agentName: 'Bench agent' }),
        onAnswer: okJson,
      };
  }
}

/** The MCP tools/call request for `op`. */
function mcpPlan(state: AgentState, op: MixOperation): Planned {
  const { account, mcpHeaders } = state;
  const call = (tool: string, args: Record<string, unknown>, operation: string = op, onResult?: (result: Record<string, unknown>) => void): Planned => ({
    operation: `${operation} (MCP)`,
    method: 'POST',
    path: '/mcp',
    headers: mcpHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
    onAnswer(status, body) {
      if (status !== 200) return false;
      const answer = JSON.parse(body) as { result?: { isError?: boolean; structuredContent?: Record<string, unknown> } };
      if (!answer.result || answer.result.isError) return false;
      onResult?.(answer.result.structuredContent ?? {});
      return true;
    },
  });
  switch (op) {
    case 'list_items':
      return call('list_items', { listId: 'tasks', limit: 50 });
    case 'feed':
      return call('list_items', { listId: 'tasks', limit: 200, changedSince: state.feedCursor }, 'feed', (r) => {
        if (typeof r.nextChangedSince === 'string') state.feedCursor = r.nextChangedSince;
      });
    case 'get_item':
      return call('get_item', { id: pick(account.itemIds) });
    case 'write':
      return creates()
        ? call('create_items', { listId: 'tasks', items: titles(writeSize()) }, 'create_items')
        : call('update_items', { items: someIds(account, writeSize()).map((itemId) => ({ itemId, title: titles(1)[0]!.title })) }, 'update_items');
    case 'query_items':
      return call('query_items', { listId: 'tasks', mode: 'count', where: [{ property: 'status', op: 'eq', value: 'todo' }] });
    case 'search':
      return call('search', { q: pick(WORDS), limit: 10 });
    case 'chat':
      return call('post_chat_message', { id: pick(account.itemIds), message: `Done: ${pick(WORDS)}.`, agentName: 'Bench agent' }, 'chat');
  }
}

/** An agent of listkeeper: REST or MCP by `account.mcp`, its feed cursor kept between polls. */
export function listkeeperAgent(account: AgentAccount): LoadAgent {
  const auth = { authorization: `Bearer ${account.token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const mcpHeaders = { ...json, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const state: AgentState = { account, auth, json, mcpHeaders, feedCursor: new Date().toISOString() };
  return { next: () => (account.mcp ? mcpPlan : restPlan)(state, chooseOperation()) };
}

/** The same agent against the ceiling: each operation its one statement, no auth, no shaping. */
export function ceilingAgent(account: AgentAccount): LoadAgent {
  const json = { 'content-type': 'application/json' };
  let feedSeq = account.feedSeq;
  const next = (op: MixOperation): Planned => {
    switch (op) {
      case 'list_items':
        return { operation: op, method: 'GET', path: `/items?listId=${account.tasksListId}&limit=50`, headers: {} };
      case 'feed':
        return {
          operation: op,
          method: 'GET',
          path: `/items?listId=${account.tasksListId}&limit=200&changedSince=${feedSeq}`,
          headers: {},
          onAnswer(status, body) {
            const rows = JSON.parse(body) as { feed_seq: string }[];
            if (rows.length) feedSeq = rows.at(-1)!.feed_seq;
            return status === 200;
          },
        };
      case 'get_item':
        return { operation: op, method: 'GET', path: `/items/${pick(account.itemIds)}`, headers: {} };
      case 'write':
        return creates()
          ? {
              operation: 'create_items',
              method: 'POST',
              path: '/items',
              headers: json,
              body: JSON.stringify({ ownerId: account.userId, listId: account.tasksListId, items: titles(writeSize()) }),
            }
          : {
              operation: 'update_items',
              method: 'PATCH',
              path: '/items',
              headers: json,
              body: JSON.stringify({ items: someIds(account, writeSize()).map((itemId) => ({ itemId, title: titles(1)[0]!.title })) }),
            };
      case 'query_items':
        return {
          operation: op,
          method: 'POST',
          path: '/items/query',
          headers: json,
          body: JSON.stringify({ mode: 'status', listId: account.tasksListId, status: 'todo' }),
        };
      case 'search':
        return { operation: op, method: 'GET', path: `/search?reader=${account.userId}&q=${pick(WORDS)}`, headers: {} };
      case 'chat':
        return {
          operation: op,
          method: 'POST',
          path: `/items/${pick(account.itemIds)}/messages`,
          headers: json,
          body: JSON.stringify({ message: `Done: ${pick(WORDS)}.` }),
        };
    }
  };
  return { next: () => next(chooseOperation()) };
}
