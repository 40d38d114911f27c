import { describe, it, expect, beforeAll } from '@jest/globals';
import fc from 'fast-check';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { query_items } from '../../src/operations/query_items.js';
import { ApiError } from '../../src/core/errors.js';

describe('query_items', () => {
  const { server, ada } = useTestServer();
  let listId: string;
  beforeAll(async () => {
    const list = await create_list(server.context(ada), {
      name: 'Expenses',
      properties: [
        { name: 'Amount', type: 'number' },
        { name: 'Kind', type: 'select', options: ['Food', 'Travel', 'Home'] },
        { name: 'Tags', type: 'multiSelect', options: ['work', 'family'] },
        { name: 'Paid', type: 'checkbox' },
        { name: 'On', type: 'date' },
        { name: 'Note', type: 'text' },
      ],
    });
    listId = list.id;
    await create_items(server.context(ada), {
      listId,
      items: [
        { title: 'Groceries', values: { Amount: 42.5, Kind: 'Food', Tags: ['family'], Paid: true, On: '2026-11-01', Note: 'weekly shop' } },
        { title: 'Train', values: { Amount: 19, Kind: 'Travel', Tags: ['work'], Paid: false, On: '2026-11-03' } },
        { title: 'Lamp', values: { Amount: 60, Kind: 'Home', Tags: ['family', 'work'], On: '2026-11-05' } },
        { title: 'Snacks', values: { Amount: 3.25, Kind: 'Food' } },
      ],
    });
  });
  const q = (input: Parameters<typeof query_items>[1]) => query_items(server.context(ada), input);
  const titles = async (input: Parameters<typeof query_items>[1]) => (await q({ ...input, sort: { property: 'title' } })).items.map((i) => i.title);

  it.each([
    ['eq on a select by label', [{ property: 'Kind', op: 'eq', value: 'food' }], ['Groceries', 'Snacks']],
    ['ne on a select', [{ property: 'Kind', op: 'ne', value: 'Food' }], ['Lamp', 'Train']],
    ['gt on a number', [{ property: 'Amount', op: 'gt', value: 19 }], ['Groceries', 'Lamp']],
    ['lte on a number', [{ property: 'Amount', op: 'lte', value: '19' }], ['Snacks', 'Train']],
    ['gte on a date', [{ property: 'On', op: 'gte', value: '2026-11-03' }], ['Lamp', 'Train']],
    ['contains on text', [{ property: 'Note', op: 'contains', value: 'SHOP' }], ['Groceries']],
    ['contains on a multiSelect', [{ property: 'Tags', op: 'contains', value: 'work' }], ['Lamp', 'Train']],
    ['in on a select', [{ property: 'Kind', op: 'in', value: ['Travel', 'Home'] }], ['Lamp', 'Train']],
    ['isEmpty', [{ property: 'Tags', op: 'isEmpty' }], ['Snacks']],
    ['isNotEmpty on a checkbox', [{ property: 'Paid', op: 'isNotEmpty' }], ['Groceries', 'Train']],
    ['eq on a checkbox', [{ property: 'Paid', op: 'eq', value: true }], ['Groceries']],
    [
      'two clauses AND-combined',
      [
        { property: 'Kind', op: 'eq', value: 'Food' },
        { property: 'Amount', op: 'gt', value: 10 },
      ],
      ['Groceries'],
    ],
    ['title as a property', [{ property: 'title', op: 'contains', value: 'a' }], ['Lamp', 'Snacks', 'Train']],
  ])('filters with %s', async (_name, where, expected) => {
    expect(await titles({ listId, where: where as never })).toEqual(expected);
  });

  it('counts and sums in the database', async () => {
    expect(await q({ listId, mode: 'count', where: [{ property: 'Kind', op: 'eq', value: 'Food' }] })).toMatchObject({ mode: 'count', count: 2, items: [] });
    const sum = await q({ listId, mode: 'sum', sumPropertyId: 'Amount' });
    expect(sum.sum).toBeCloseTo(124.75);
    expect(sum.count).toBe(4);
  });

  it.each([
    ['sum on a non-number property', { mode: 'sum', sumPropertyId: 'Kind' }, /'Kind' is a select property; sum needs a number property \(Amount\)/],
    ['sum without sumPropertyId', { mode: 'sum' }, /needs sumPropertyId/],
    ['an unknown property', { where: [{ property: 'Colour', op: 'eq', value: 1 }] }, /Unknown property 'Colour'; valid: title, Amount, Kind/],
    ['lt on a select', { where: [{ property: 'Kind', op: 'lt', value: 'Food' }] }, /cannot be compared with lt/],
    ['an unknown option', { where: [{ property: 'Kind', op: 'eq', value: 'Pets' }] }, /has no option "Pets"/],
  ])('refuses %s with a sentence', async (_name, input, message) => {
    const attempt = q({ listId, ...(input as object) });
    await expect(attempt).rejects.toThrow(ApiError);
    await expect(attempt).rejects.toThrow(message);
  });

  it('pages with offset until hasMore is false', async () => {
    const first = await q({ listId, limit: 3, sort: { property: 'Amount', direction: 'desc' } });
    expect(first).toMatchObject({ hasMore: true, count: 4, offset: 0 });
    expect(first.items.map((i) => i.title)).toEqual(['Lamp', 'Groceries', 'Train']);
    const second = await q({ listId, limit: 3, offset: 3, sort: { property: 'Amount', direction: 'desc' } });
    expect(second.items.map((i) => i.title)).toEqual(['Snacks']);
    expect(second.hasMore).toBe(false);
  });

  it('agrees with filtering all rows in memory for random data and clauses (count and sum)', async () => {
    const bea = await server.account('Bea');
    const ctx = server.context(bea);
    const list = await create_list(ctx, {
      name: 'Random',
      properties: [
        { name: 'N', type: 'number' },
        { name: 'K', type: 'select', options: ['a', 'b', 'c'] },
      ],
    });
    const rows = fc.sample(
      fc.record({ n: fc.option(fc.integer({ min: -50, max: 50 }), { nil: undefined }), k: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }) }),
      { numRuns: 60, seed: 42 },
    );
    await create_items(ctx, {
      listId: list.id,
      items: rows.map((r, i) => ({ title: `r${i}`, values: { ...(r.n !== undefined ? { N: r.n } : {}), ...(r.k ? { K: r.k } : {}) } })),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'isEmpty', 'isNotEmpty'),
        fc.integer({ min: -50, max: 50 }),
        fc.constantFrom('a', 'b', 'c'),
        async (op, n, k) => {
          const where = [
            { property: 'N', op, ...(op.startsWith('is') ? {} : { value: n }) },
            { property: 'K', op: 'ne', value: k },
          ];
          const keep = rows.filter((r) => {
            const v = r.n;
            const numeric = {
              eq: v === n,
              ne: v !== n,
              lt: v !== undefined && v < n,
              lte: v !== undefined && v <= n,
              gt: v !== undefined && v > n,
              gte: v !== undefined && v >= n,
              isEmpty: v === undefined,
              isNotEmpty: v !== undefined,
            }[op]!;
            return numeric && r.k !== k;
          });
          const count = await query_items(ctx, { listId: list.id, mode: 'count', where: where as never });
          const sum = await query_items(ctx, { listId: list.id, mode: 'sum', sumPropertyId: 'N', where: where as never });
          expect(count.count).toBe(keep.length);
          expect(sum.sum).toBe(keep.reduce((s, r) => s + (r.n ?? 0), 0));
        },
      ),
      { numRuns: 40, seed: 7 },
    );
  });

  it("reads the person's time zone only for a clause on the due date, and compares in it", async () => {
    const zoned = await server.account('Zed');
    await server.db('users').where({ id: zoned.userId }).update({ timezone: 'Pacific/Auckland' });
    const ctx = server.context(zoned);
    // A time without an offset is read in the person's zone: 13:00 on 1 December in Auckland is 00:00 UTC, before the 12:00 UTC due time.
    await create_items(ctx, { items: [{ title: 'Late call', dueAt: '2026-12-01T12:00:00Z' }] });
    const statements: string[] = [];
    const listen = (query: { sql: string }) => statements.push(query.sql);
    server.db.on('query', listen);
    try {
      const before = await query_items(ctx, { listId: 'tasks', where: [{ property: 'dueDate', op: 'lt', value: '2026-12-01T13:00' }] });
      expect(before.items.map((i) => i.title)).toEqual([]);
      const after = await query_items(ctx, { listId: 'tasks', where: [{ property: 'dueDate', op: 'gte', value: '2026-12-01T13:00' }] });
      expect(after.items.map((i) => i.title)).toEqual(['Late call']);
      expect(statements.filter((sql) => sql.includes('"users"'))).toHaveLength(2);
      statements.length = 0;
      expect((await query_items(ctx, { listId: 'tasks', mode: 'count', where: [{ property: 'title', op: 'contains', value: 'call' }] })).count).toBe(1);
      expect(statements.filter((sql) => sql.includes('"users"'))).toEqual([]);
    } finally {
      server.db.removeListener('query', listen);
    }
  });

  it('answers through REST and MCP alike', async () => {
    const rest = await ada.sdk.POST('/items/query', { body: { listId, mode: 'count' } });
    const mcp = await (await server.mcp(ada)).callTool({ name: 'query_items', arguments: { listId, mode: 'count' } });
    expect(mcp.structuredContent).toEqual(rest.data);
  });
});
