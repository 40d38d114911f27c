/**
 * query_items `where` over every operator and every kind of property, the list's own and the
 * reserved `status` and `dueDate` of a task list: never a 500; a clause that cannot apply is
 * refused naming it; for numbers, due dates and status the answer is exactly the items a
 * filter computed here selects.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import fc from 'fast-check';
import { useTestServer } from '../../support/server.js';
import { create_list } from '../../../src/operations/create_list.js';
import { create_items } from '../../../src/operations/create_items.js';
import { update_list } from '../../../src/operations/update_list.js';

const OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'contains', 'in', 'isEmpty', 'isNotEmpty'] as const;
type Op = (typeof OPS)[number];

interface Seeded {
  id: string;
  pages: number | null;
  dueAt: string | null;
  status: 'todo' | 'inProgress' | 'completed';
}

describe('query_items where, every operator on every kind of property', () => {
  const { server, ada } = useTestServer({});
  let listId: string;
  const seeded: Seeded[] = [];
  beforeAll(async () => {
    listId = (await create_list(server.context(ada), { name: 'Reading tasks', template: 'tasks' } as never)).id;
    await update_list(server.context(ada), {
      id: listId,
      addProperties: [
        { name: 'Pages', type: 'number' },
        { name: 'Note', type: 'text' },
        { name: 'Shelf', type: 'select', options: ['To read', 'Read'] },
        { name: 'Tags', type: 'multiSelect', options: ['SF', 'Classic'] },
        { name: 'Started', type: 'date' },
        { name: 'Owned', type: 'checkbox' },
        { name: 'Link', type: 'url' },
        { name: 'Contact', type: 'email' },
      ],
    } as never);
    const rows: Omit<Seeded, 'id'>[] = [
      { pages: 100, dueAt: '2026-11-20T09:00:00.000Z', status: 'todo' },
      { pages: 250, dueAt: '2026-11-30T00:00:00.000Z', status: 'inProgress' },
      { pages: null, dueAt: null, status: 'completed' },
      { pages: 400, dueAt: '2026-12-05T18:30:00.000Z', status: 'todo' },
    ];
    const made = await create_items(server.context(ada), {
      listId,
      items: rows.map((r, i) => ({
        title: `Book ${i}`,
        taskStatus: r.status,
        ...(r.dueAt ? { dueAt: r.dueAt } : {}),
        values: {
          ...(r.pages !== null ? { Pages: r.pages } : {}),
          Note: i % 2 ? 'long read' : '',
          Shelf: 'Read',
          Tags: ['SF'],
          Started: `2026-01-0${i + 1}`,
          Owned: i % 2 === 0,
        },
      })),
    });
    expect(made.failed).toEqual([]);
    made.items.forEach((item, i) => seeded.push({ id: item.id, ...rows[i]! }));
  });

  const query = (property: string, op: Op, value?: unknown) =>
    ada.sdk.POST('/items/query', { body: { listId, where: [{ property, op, ...(value !== undefined ? { value } : {}) }] } as never });

  /** The ids a clause selects, computed here, for the kinds this test models. */
  function expected(kind: 'pages' | 'due' | 'status', op: Op, value: unknown): string[] | undefined {
    const key = (s: Seeded) => (kind === 'pages' ? s.pages : kind === 'due' ? (s.dueAt ? Date.parse(s.dueAt) : null) : s.status);
    const v = kind === 'due' && typeof value === 'string' ? Date.parse(value) : value;
    const pick = (f: (x: number | string) => boolean) => seeded.filter((s) => key(s) !== null && f(key(s)!)).map((s) => s.id);
    switch (op) {
      case 'eq':
        return pick((x) => x === v);
      case 'ne':
        return seeded.filter((s) => key(s) !== v).map((s) => s.id);
      case 'lt':
        return kind === 'status' ? undefined : pick((x) => (x as number) < (v as number));
      case 'lte':
        return kind === 'status' ? undefined : pick((x) => (x as number) <= (v as number));
      case 'gt':
        return kind === 'status' ? undefined : pick((x) => (x as number) > (v as number));
      case 'gte':
        return kind === 'status' ? undefined : pick((x) => (x as number) >= (v as number));
      case 'in':
        return pick((x) => (v as unknown[]).map((e) => (kind === 'due' ? Date.parse(String(e)) : e)).includes(x));
      case 'isEmpty':
        return seeded.filter((s) => key(s) === null).map((s) => s.id);
      case 'isNotEmpty':
        return seeded.filter((s) => key(s) !== null).map((s) => s.id);
      default:
        return undefined;
    }
  }

  const sorted = (ids: string[]) => [...ids].sort();

  it('answers every operator on every kind of property without a 500, and names the problem when it refuses', async () => {
    const properties = ['Pages', 'Note', 'Shelf', 'Tags', 'Started', 'Owned', 'Link', 'Contact', 'status', 'Status', 'dueDate', 'Due date', 'title'];
    const values = [
      undefined,
      42,
      'Read',
      ['SF'],
      '2026-11-30',
      '2026-11-30T00:00:00.000Z',
      true,
      'todo',
      ['todo', 'completed'],
      'https://example.org',
      'x@example.org',
    ];
    for (const property of properties)
      for (const op of OPS)
        for (const value of values) {
          const { response, error } = await query(property, op, value);
          expect({ property, op, value, status: [200, 400, 409].includes(response.status) ? 'answered' : response.status }).toEqual({
            property,
            op,
            value,
            status: 'answered',
          });
          if (response.status !== 200) expect(error?.error).toMatch(/where\[0\]|value|op/);
        }
  }, 120000);

  it('selects exactly the items a filter computed here selects: numbers, due dates (date-time, date alone, by id or name) and status', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('pages', 'due', 'status') as fc.Arbitrary<'pages' | 'due' | 'status'>,
        fc.constantFrom<Op>('eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'isEmpty', 'isNotEmpty'),
        fc.nat({ max: 3 }),
        fc.boolean(),
        async (kind, op, pickIndex, byName) => {
          const pool =
            kind === 'pages'
              ? [100, 250, 400, 300]
              : kind === 'due'
                ? ['2026-11-20T09:00:00.000Z', '2026-11-30T00:00:00.000Z', '2026-12-05T18:30:00.000Z', '2026-12-01T00:00:00.000Z']
                : ['todo', 'inProgress', 'completed', 'todo'];
          const one = pool[pickIndex]!;
          const value = op === 'in' ? [one, pool[(pickIndex + 1) % 4]] : op === 'isEmpty' || op === 'isNotEmpty' ? undefined : one;
          const property = kind === 'pages' ? 'Pages' : kind === 'due' ? (byName ? 'Due date' : 'dueDate') : byName ? 'Status' : 'status';
          const want = expected(kind, op, value);
          const { data, response, error } = await query(property, op, value);
          if (want === undefined) {
            expect(response.status).toBe(409);
            expect(error?.error).toContain('cannot be compared');
            return;
          }
          expect(response.status).toBe(200);
          expect(sorted(data!.items.map((i) => i.id))).toEqual(sorted(want));
        },
      ),
      { numRuns: 60 },
    );
  }, 120000);

  it('reads a due date given as a date alone as the start of that day in the person’s time zone', async () => {
    const { data, error } = await query('dueDate', 'lt', '2026-11-30');
    expect(error).toBeUndefined();
    expect(sorted(data!.items.map((i) => i.id))).toEqual(sorted([seeded[0]!.id]));
  });
});
