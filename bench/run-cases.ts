/**
 * What `make bench` (bench/run.ts) measures: each operation as listkeeper's request and the ceiling's
 * (bench/ceiling.ts), on a seeded workspace, and the row of figures one load run gives.
 */
import type autocannon from 'autocannon';
import type { SeedResult } from './seed.js';
import { SQL } from './ceiling-sql.js';

export interface Row {
  operation: string;
  data: string;
  connections: number;
  target: 'listkeeper' | 'ceiling';
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Requests answered, and those autocannon gave up on (10 s without an answer). */
  completed: number;
  timeouts: number;
}

export interface Case {
  operation: string;
  ours(ws: Workspace): autocannon.Options;
  ceiling(ws: Workspace): autocannon.Options;
  /** The ceiling's statement for this read, for EXPLAIN ANALYZE when it grows slower with the data. */
  plan?(ws: Workspace): { sql: string; params: unknown[] };
}
export interface Workspace {
  label: string;
  seed: SeedResult;
  itemIds: string[];
  readOption: string;
  base: string;
  ceilingBase: string;
}

let counter = 0;
export const json = { 'content-type': 'application/json' };
export const auth = (ws: Workspace) => ({ authorization: `Bearer ${ws.seed.key}`, ...json });
export const rotate = <T>(xs: T[]) => xs[counter++ % xs.length]!;
const titles = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `bench ${counter}-${i}` }));

export const cases: Case[] = [
  {
    operation: 'get_item',
    ours: (ws) => ({ url: ws.base, headers: auth(ws), requests: [{ setupRequest: (r: any) => ({ ...r, path: `/api/v1/items/${rotate(ws.itemIds)}` }) }] }),
    ceiling: (ws) => ({ url: ws.ceilingBase, requests: [{ setupRequest: (r: any) => ({ ...r, path: `/items/${rotate(ws.itemIds)}` }) }] }),
    plan: (ws) => ({ sql: SQL.getItem, params: [ws.itemIds[0]] }),
  },
  ...[50, 200].map((limit) => ({
    operation: `list_items (${limit})`,
    ours: (ws: Workspace) => ({ url: `${ws.base}/api/v1/items?listId=${ws.seed.lists.tasks}&limit=${limit}`, headers: auth(ws) }),
    ceiling: (ws: Workspace) => ({ url: `${ws.ceilingBase}/items?listId=${ws.seed.lists.tasks}&limit=${limit}` }),
    plan: (ws: Workspace) => ({ sql: SQL.listItems, params: [ws.seed.lists.tasks, limit] }),
  })),
  ...[1, 100].map((n) => ({
    operation: `create_items (${n})`,
    ours: (ws: Workspace) => ({
      url: `${ws.base}/api/v1/items`,
      method: 'POST' as const,
      headers: auth(ws),
      requests: [{ setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ listId: ws.seed.lists.projects, items: titles(n) }) }) }],
    }),
    ceiling: (ws: Workspace) => ({
      url: `${ws.ceilingBase}/items`,
      method: 'POST' as const,
      headers: json,
      requests: [{ setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ ownerId: ws.seed.userId, listId: ws.seed.lists.projects, items: titles(n) }) }) }],
    }),
  })),
  ...[1, 200].map((n) => ({
    operation: `update_items (${n})`,
    ours: (ws: Workspace) => ({
      url: `${ws.base}/api/v1/items`,
      method: 'PATCH' as const,
      headers: auth(ws),
      requests: [
        {
          setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ items: pickIds(ws, n).map((itemId, i) => ({ itemId, title: `edit ${counter}-${i}` })) }) }),
        },
      ],
    }),
    ceiling: (ws: Workspace) => ({
      url: `${ws.ceilingBase}/items`,
      method: 'PATCH' as const,
      headers: json,
      requests: [
        {
          setupRequest: (r: any) => ({ ...r, body: JSON.stringify({ items: pickIds(ws, n).map((itemId, i) => ({ itemId, title: `edit ${counter}-${i}` })) }) }),
        },
      ],
    }),
  })),
  ...(['count', 'sum'] as const).map((mode) => ({
    operation: `query_items (${mode})`,
    ours: (ws: Workspace) => ({
      url: `${ws.base}/api/v1/items/query`,
      method: 'POST' as const,
      headers: auth(ws),
      body: JSON.stringify({
        listId: ws.seed.bigListId,
        mode,
        ...(mode === 'sum' ? { sumPropertyId: 'Pages' } : {}),
        where: [{ property: 'State', op: 'eq', value: 'Read' }],
      }),
    }),
    ceiling: (ws: Workspace) => ({
      url: `${ws.ceilingBase}/items/query`,
      method: 'POST' as const,
      headers: json,
      body: JSON.stringify({ listId: ws.seed.bigListId, mode, optionId: ws.readOption }),
    }),
    plan: (ws: Workspace) => ({ sql: mode === 'sum' ? SQL.querySum : SQL.queryCount, params: [ws.seed.bigListId, ws.readOption] }),
  })),
  {
    operation: 'changes feed (200)',
    ours: (ws) => ({ url: `${ws.base}/api/v1/items?listId=${ws.seed.bigListId}&changedSince=2000-01-01T00:00:00Z&limit=200`, headers: auth(ws) }),
    ceiling: (ws) => ({ url: `${ws.ceilingBase}/items?listId=${ws.seed.bigListId}&changedSince=x&limit=200` }),
    plan: (ws) => ({ sql: SQL.feed, params: [ws.seed.bigListId, 201] }),
  },
];

function pickIds(ws: Workspace, n: number): string[] {
  const start = (counter++ * n) % Math.max(1, ws.itemIds.length - n);
  return ws.itemIds.slice(start, start + n);
}

export type Load = Omit<Row, 'operation' | 'data' | 'connections' | 'target'>;
