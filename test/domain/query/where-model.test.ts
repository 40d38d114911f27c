/**
 * query_items `where` against a model written here. Random items on a task list that also has
 * one property of every own type; random clauses: every operator on every property (own ones
 * by name or id, the reserved status and dueDate by id or name, the title, createdAt and
 * updatedAt), with values that fit and values that do not. Every answer must be the items the
 * model selects (200), as a page, a count and a sum of Pages (count and sum on select and number
 * conditions alone come from item_values), or, where the model says the clause cannot apply, a
 * 409 whose sentence names the clause (`where[i]`) and the property. A second property throws anything the schema
 * admits at the same list, dates Postgres cannot read among it: never a 500.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import fc from 'fast-check';
import { useTestServer } from '../../support/server.js';
import { create_list } from '../../../src/operations/create_list.js';
import { update_list } from '../../../src/operations/update_list.js';
import { create_items } from '../../../src/operations/create_items.js';
import {
  OPS,
  TARGETS,
  SHELF,
  TAGS,
  STATUSES,
  TRUE,
  FALSE,
  dateText,
  itemArb,
  clauseArb,
  instantOf,
  REFUSED,
  type Scalar,
  type Value,
  type Target,
  type ItemSpec,
  type Clause,
  type Row,
  type ListShape,
  type Parsed,
} from './where-model-arbitraries.js';

describe('query_items where against a model: every operator on every property', () => {
  const { server, ada } = useTestServer();
  let personZone: string;
  let sessionZone: string;
  beforeAll(async () => {
    personZone = ((await server.db('users').where({ id: ada.userId }).first('timezone')) as { timezone: string }).timezone;
    sessionZone = ((await server.db.raw(`SELECT current_setting('TimeZone') AS tz`)) as { rows: { tz: string }[] }).rows[0]!.tz;
  });

  async function seed(items: ItemSpec[]): Promise<{ list: ListShape; rows: Row[] }> {
    const ctx = server.context(ada);
    const id = (await create_list(ctx, { name: `Model ${Math.random().toString(36).slice(2, 8)}`, template: 'tasks' } as never)).id;
    await update_list(ctx, {
      id,
      addProperties: [
        { name: 'Words', type: 'text' },
        { name: 'Link', type: 'url' },
        { name: 'Contact', type: 'email' },
        { name: 'Pages', type: 'number' },
        { name: 'Started', type: 'date' },
        { name: 'Owned', type: 'checkbox' },
        { name: 'Shelf', type: 'select', options: SHELF },
        { name: 'Tags', type: 'multiSelect', options: TAGS },
      ],
    } as never);
    const properties = (
      (await server.db('lists').where({ id }).first('properties')) as { properties: { id: string; name: string; options?: { id: string; label: string }[] }[] }
    ).properties;
    const list: ListShape = {
      id,
      propertyId: Object.fromEntries(properties.map((p) => [p.name, p.id])),
      optionId: Object.fromEntries(properties.filter((p) => p.options).map((p) => [p.name, Object.fromEntries(p.options!.map((o) => [o.label, o.id]))])),
    };
    const made = await create_items(ctx, {
      listId: id,
      items: items.map(({ title, status, due, ...values }) => ({
        title,
        taskStatus: status,
        ...(due !== undefined ? { dueAt: due } : {}),
        values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)),
      })) as never,
    });
    expect(made.failed).toEqual([]);
    const rows = made.items.map((i) => ({
      id: i.id,
      title: i.title,
      status: i.taskStatus!,
      dueAt: i.dueAt,
      createdAt: i.createdAt,
      updatedAt: i.updatedAt,
      values: i.values as Record<string, unknown>,
    }));
    return { list, rows };
  }

  /** The value as the clause sends it: `#id:<label>` becomes that option's id. */
  function sent(list: ListShape, t: Target, value: Value): Value {
    const one = (v: Scalar): Scalar => (typeof v === 'string' && v.startsWith('#id:') ? list.optionId[t.key]![v.slice(4)]! : v);
    return Array.isArray(value) ? value.map(one) : value === undefined ? undefined : one(value);
  }

  /** One scalar read as the kind reads it, or REFUSED. */
  function parse(list: ListShape, t: Target, v: Scalar): Parsed | typeof REFUSED {
    if (v === '') return REFUSED;
    switch (t.kind) {
      case 'text':
        return String(v);
      case 'number': {
        if (typeof v === 'number') return Number.isFinite(v) ? v : REFUSED;
        if (typeof v !== 'string' || v.trim() === '') return REFUSED;
        const n = Number(v.replace(/,/g, ''));
        return Number.isFinite(n) ? n : REFUSED;
      }
      case 'date':
      case 'instant':
        return typeof v === 'string' ? (instantOf(v, sessionZone) ?? REFUSED) : REFUSED;
      case 'due':
        return typeof v === 'string' ? (instantOf(v, personZone) ?? REFUSED) : REFUSED;
      case 'bool': {
        if (typeof v === 'boolean') return v;
        const text = String(v).trim().toLowerCase();
        return TRUE.includes(text) ? true : FALSE.includes(text) ? false : REFUSED;
      }
      case 'option':
      case 'options': {
        const options = list.optionId[t.key]!;
        const found = Object.entries(options).find(([label, id]) => id === v || label.toLowerCase() === String(v).toLowerCase());
        return found ? (t.kind === 'options' ? [found[1]] : found[1]) : REFUSED;
      }
      case 'status': {
        const found = STATUSES.find((s) => s.id === v || s.label.toLowerCase() === String(v).toLowerCase());
        return found ? found.id : REFUSED;
      }
    }
  }

  /** The item's stored value in the kind's terms; null when it has none. */
  function stored(list: ListShape, t: Target, row: Row): Scalar | string[] | null {
    switch (t.kind) {
      case 'text':
        return t.key === 'title' ? row.title : ((row.values[list.propertyId[t.key]!] as string | undefined) ?? null);
      case 'date': {
        const v = row.values[list.propertyId[t.key]!] as string | undefined;
        return v === undefined ? null : instantOf(v, sessionZone)!;
      }
      case 'due':
        return row.dueAt === null ? null : Date.parse(row.dueAt);
      case 'instant':
        return Date.parse(t.key === 'createdAt' ? row.createdAt : row.updatedAt);
      case 'status':
        return row.status;
      default:
        return (row.values[list.propertyId[t.key]!] as Scalar | string[] | undefined) ?? null;
    }
  }

  /** The rows one clause selects, or REFUSED. */
  function select(list: ListShape, rows: Row[], clause: Clause): Row[] | typeof REFUSED {
    const { target: t, op } = clause;
    const value = sent(list, t, clause.value);
    const isEmpty = (s: ReturnType<typeof stored>) => (t.kind === 'status' ? false : s === null || s === '' || (Array.isArray(s) && s.length === 0));
    if (op === 'isEmpty') return rows.filter((r) => isEmpty(stored(list, t, r)));
    if (op === 'isNotEmpty') return rows.filter((r) => !isEmpty(stored(list, t, r)));
    if (value === undefined) return REFUSED;
    if (['lt', 'lte', 'gt', 'gte'].includes(op) && !['text', 'number', 'date', 'due', 'instant'].includes(t.kind)) return REFUSED;
    if (op === 'contains' && t.kind !== 'text' && t.kind !== 'options') return REFUSED;
    // One value, except for `in` (any of several) and a multiSelect (a set); a select takes a one-element array too.
    let parsed: Parsed[];
    if (op === 'in' || t.kind === 'options') {
      const several = Array.isArray(value) ? value : [value];
      if (several.length === 0) return REFUSED;
      const each = several.map((v) => parse(list, t, v));
      if (each.includes(REFUSED)) return REFUSED;
      // A multiSelect: `in` is any of the options, every other operator one set of them.
      parsed = t.kind !== 'options' ? (each as Parsed[]) : op === 'in' ? (each as string[][]).flat() : [(each as string[][]).flat()];
    } else {
      const single = Array.isArray(value) ? (t.kind === 'option' && value.length === 1 ? value[0]! : REFUSED) : value;
      if (single === REFUSED) return REFUSED;
      const p = parse(list, t, single);
      if (p === REFUSED) return REFUSED;
      parsed = [p];
    }
    const same = (a: Parsed, b: Scalar | string[]) =>
      Array.isArray(a) ? Array.isArray(b) && a.every((x) => b.includes(x)) && b.every((x) => a.includes(x)) : a === b;
    const p = parsed[0]!;
    return rows.filter((r) => {
      const s = stored(list, t, r);
      switch (op) {
        case 'eq':
          return s !== null && same(p, s);
        case 'ne':
          return !(s !== null && same(p, s));
        case 'lt':
          return s !== null && s < (p as number | string);
        case 'lte':
          return s !== null && s <= (p as number | string);
        case 'gt':
          return s !== null && s > (p as number | string);
        case 'gte':
          return s !== null && s >= (p as number | string);
        case 'contains':
          return (
            s !== null &&
            (t.kind === 'options' ? (p as string[]).every((x) => (s as string[]).includes(x)) : String(s).toLowerCase().includes(String(p).toLowerCase()))
          );
        case 'in':
          return s !== null && (t.kind === 'options' ? (parsed as string[]).some((x) => (s as string[]).includes(x)) : parsed.includes(s as Scalar));
        default:
          throw new Error(op);
      }
    });
  }

  const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();

  it('answers exactly the items a filter written here selects, or refuses naming the clause and the property', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(itemArb, { minLength: 3, maxLength: 10 }),
        fc.array(fc.array(clauseArb, { minLength: 1, maxLength: 3 }), { minLength: 8, maxLength: 8 }),
        async (items, queries) => {
          const { list, rows } = await seed(items);
          for (const clauses of queries) {
            const where = clauses.map((c) => ({
              property: c.byId && c.target.own ? list.propertyId[c.target.key]! : c.target.key,
              op: c.op,
              ...(c.value !== undefined ? { value: sent(list, c.target, c.value) } : {}),
            }));
            let expected: Row[] = rows;
            let refusedAt = -1;
            for (const [index, clause] of clauses.entries()) {
              const picked = select(list, rows, clause);
              if (picked === REFUSED) {
                refusedAt = index;
                break;
              }
              expected = expected.filter((r) => picked.includes(r));
            }
            const { data, error, response } = await ada.sdk.POST('/items/query', { body: { listId: list.id, where, limit: 200 } as never });
            // The schema takes strings and numbers in a list of values: anything else is a 400 before any clause is read.
            if (clauses.some((c) => Array.isArray(c.value) && c.value.some((v) => typeof v === 'boolean'))) {
              expect({ where, status: response.status }).toEqual({ where, status: 400 });
              expect(error?.error).toContain('where');
            } else if (refusedAt >= 0) {
              expect({ where, status: response.status }).toEqual({ where, status: 409 });
              expect(error?.error).toContain(`where[${refusedAt}]`);
              expect(error?.error).toContain(clauses[refusedAt]!.target.label);
            } else {
              expect({ where, status: response.status, error: error?.error }).toEqual({ where, status: 200, error: undefined });
              expect({ where, ids: ids(data!.items) }).toEqual({ where, ids: ids(expected) });
              // Count and sum too: those on select and number conditions alone are read from item_values (src/domain/query/item-values.ts).
              const pages = (r: Row) => r.values[list.propertyId.Pages!];
              const total = expected.reduce((acc, r) => acc + (typeof pages(r) === 'number' ? (pages(r) as number) : 0), 0);
              const counted = await ada.sdk.POST('/items/query', { body: { listId: list.id, where, mode: 'count' } as never });
              expect({ where, count: counted.data?.count }).toEqual({ where, count: expected.length });
              const summed = await ada.sdk.POST('/items/query', { body: { listId: list.id, where, mode: 'sum', sumPropertyId: 'Pages' } as never });
              expect({ where, count: summed.data?.count, sum: summed.data?.sum }).toEqual({ where, count: expected.length, sum: total });
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 240000);

  it('never answers 500, whatever the schema admits as a clause, and with dates Postgres cannot read among the values', async () => {
    const ctx = server.context(ada);
    const { list } = await seed([
      {
        title: 'a',
        status: 'todo',
        due: '2026-11-30',
        Words: 'a',
        Link: undefined,
        Contact: undefined,
        Pages: 1,
        Started: '0001-01-01',
        Owned: true,
        Shelf: 'Read',
        Tags: ['sf'],
      },
    ]);
    // Years Postgres does not read, written through the API: refused or stored, the queries below must still answer.
    for (const edge of ['0000-01-01', '0001-01-01T00:00:00+01:00', '9999-12-31T23:00:00-05:00']) {
      await create_items(ctx, { listId: list.id, items: [{ title: `edge ${edge}`, dueAt: edge, values: { Started: edge } }] });
    }
    const edgeDates = fc.constantFrom(
      '0000-01-01',
      '0000-12-31T23:00:00Z',
      '0001-01-01T00:00:00+01:00',
      '9999-12-31T23:59:59-14:00',
      '9999-12-31',
      '1',
      'March 7, 2026',
      '2026-11-30T12:00:00+15:30',
      '2026-11-30T12:00:00+23:59',
      '2026-11-30T12:00:00.1234567Z',
      '+012026-01-01',
      '2026-11-30 12:00',
    );
    const scalar = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      edgeDates,
      edgeDates,
      dateText,
      fc.constantFrom(...SHELF, ...TAGS, 'todo', 'Done'),
    );
    const anything = fc.oneof(
      scalar,
      scalar,
      fc.array(fc.oneof(fc.string(), fc.integer(), edgeDates), { maxLength: 3 }),
      fc.constant(null),
      fc.constant(undefined),
    );
    const key = fc.oneof(
      fc.constantFrom(...TARGETS.map((t) => t.key)),
      fc.constantFrom(...TARGETS.filter((t) => ['date', 'due', 'instant'].includes(t.kind)).map((t) => t.key)),
      fc.constantFrom(...TARGETS.filter((t) => t.own).map((t) => list.propertyId[t.key]!)),
      fc.constantFrom('Nope', ' title ', 'STATUS', 'DueDate'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ property: key, op: fc.constantFrom(...OPS), value: anything }), { minLength: 1, maxLength: 2 }),
        async (clauses) => {
          const where = clauses.map((c) => (c.value === undefined ? { property: c.property, op: c.op } : c));
          const { error, response } = await ada.sdk.POST('/items/query', { body: { listId: list.id, where } as never });
          expect({ where, status: [200, 400, 409].includes(response.status) ? 'answered' : response.status }).toEqual({ where, status: 'answered' });
          if (response.status !== 200) expect(error?.error).toMatch(/\S+ \S+/);
        },
      ),
      { numRuns: 400 },
    );
  }, 240000);
});
