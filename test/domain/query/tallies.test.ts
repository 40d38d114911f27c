/**
 * The tallies (migrations 20261126000300 and 20261201000100, src/domain/query/tallies.ts):
 * query_items' count and sum with one `eq` on a select, kept per option in place by the
 * triggers on items, under the list's lock. Through every kind of write, retype, import,
 * trash and restore each figure is exactly what the items say; a property with values before
 * it was tallied is counted when it is registered, and a write racing the registration from
 * outside the list's lock is counted once, whichever commits first.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import fc from 'fast-check';
import { useTestServer } from '../../support/server.js';
import { startTestJobs } from '../../support/jobs.js';
import { importEnded } from '../../support/import-sample.js';
import type { Jobs } from '../../../src/jobs/queue.js';
import { readTally } from '../../../src/domain/query/tallies.js';

interface Shape {
  id: string;
  shelf: string;
  options: Record<string, string>;
  numbers: string[];
}

describe('value tallies: count and sum per select option', () => {
  let jobs: Jobs | undefined;
  const { server, ada } = useTestServer({ beforeClose: async () => jobs?.stop() });
  // The queue runs imports.
  beforeAll(async () => {
    jobs = await startTestJobs(server);
  });
  async function makeList(name: string): Promise<Shape> {
    const properties = [
      { name: 'Shelf', type: 'select', options: [{ label: 'Read' }, { label: 'Unread' }, { label: 'Lent' }] },
      { name: 'Pages', type: 'number' },
      { name: 'Price', type: 'number' },
      { name: 'Note', type: 'text' },
    ];
    const id = (await ada.sdk.POST('/lists', { body: { name, properties } as never })).data!.id;
    const list = (await server.db('lists').where({ id }).first('properties')) as {
      properties: { id: string; name: string; type: string; options?: { id: string; label: string }[] }[];
    };
    const shelf = list.properties.find((p) => p.name === 'Shelf')!;
    return {
      id,
      shelf: shelf.id,
      options: Object.fromEntries(shelf.options!.map((o) => [o.label, o.id])),
      numbers: list.properties.filter((p) => p.type === 'number').map((p) => p.id),
    };
  }

  /** The figure as the items table says it, with no tallies and no item_values. */
  async function truth(list: Shape, option: string, includeArchived: boolean, summed?: string) {
    const sum = summed
      ? `coalesce(sum(CASE WHEN jsonb_typeof("values"->'${summed}') = 'number' THEN ("values"->>'${summed}')::numeric END), 0)::float8`
      : 'NULL::float8';
    const { rows } = await server.db.raw(
      `SELECT count(*)::int AS count, ${sum} AS sum FROM items
        WHERE list_id = ? AND deleted_at IS NULL AND NOT is_template AND "values"->>? = ?${includeArchived ? '' : ' AND archived_at IS NULL'}`,
      [list.id, list.shelf, option],
    );
    return rows[0] as { count: number; sum: number | null };
  }

  /** Every option, with and without archived items, counted and summed by each number: from the tallies, as the items say. */
  async function expectExact(list: Shape) {
    for (const option of Object.values(list.options))
      for (const includeArchived of [false, true])
        for (const summed of [undefined, ...list.numbers]) {
          const read = await readTally(server.db, list.id, list.shelf, option, { includeArchived, sumPropertyId: summed });
          expect({ option, includeArchived, summed, read: read && { count: read.count, sum: read.sum } }).toEqual({
            option,
            includeArchived,
            summed,
            read: await truth(list, option, includeArchived, summed),
          });
        }
  }

  /** update_list retyping the list's select (Shelf) to `type`. */
  async function retype(list: Shape, type: 'text' | 'select') {
    const answer = (await ada.sdk.PATCH(
      `/lists/${list.id}` as never,
      {
        body: { updateProperty: { id: list.shelf, type }, acknowledgeDataLoss: true },
      } as never,
    )) as { response: Response };
    expect(answer.response.status).toBe(200);
  }

  const figures = async () => server.db('value_tallies').orderBy(['generation', 'text_value', 'summed', 'archived']).select();
  const registration = async (list: Shape) =>
    (await server.db('tallied_properties').where({ list_id: list.id, property_id: list.shelf }).first()) as { generation: string } | undefined;

  it('is exact through every kind of write', async () => {
    const books = await makeList('Tallied books');
    const other = await makeList('Tallied elsewhere');
    expect(await registration(books)).toBeDefined();
    const [pages] = books.numbers as [string];
    const made = await ada.sdk.POST('/items', {
      body: {
        listId: books.id,
        items: [
          { title: 'Dune', values: { Shelf: 'Read', Pages: 412, Price: 9.99 } },
          { title: 'Emma', values: { Shelf: 'Read', Pages: 474 } },
          { title: 'Ulysses', values: { Shelf: 'Unread', Pages: 730, Price: 0.01 } },
          { title: 'Untitled', values: { Shelf: 'Read' } },
          { title: 'No values' },
        ],
      } as never,
    });
    const [dune, emma, ulysses, untitled, none] = made.data!.items.map((i) => i.id) as string[];
    // One statement made five items: one row per option and figure (a count and two sums for
    // Read and for Unread), not one per item.
    expect(await figures()).toHaveLength(6);
    await expectExact(books);
    expect(await truth(books, books.options.Read!, false, pages)).toEqual({ count: 3, sum: 886 });

    const steps: [string, () => Promise<unknown>][] = [
      [
        'values changed and cleared',
        () =>
          ada.sdk.PATCH('/items', {
            body: {
              items: [
                { itemId: ulysses, values: { Shelf: 'Read' } },
                { itemId: emma, values: { Pages: null } },
              ],
            } as never,
          }),
      ],
      ['a title edit changes no figure', () => ada.sdk.PATCH('/items', { body: { items: [{ itemId: dune, title: 'Dune (again)' }] } as never })],
      ['archived', () => ada.sdk.PATCH('/items', { body: { items: [{ itemId: dune }], archived: true } as never })],
      [
        'a value set on an item that had none',
        () => ada.sdk.PATCH('/items', { body: { items: [{ itemId: none, values: { Shelf: 'Lent', Price: 3 } }] } as never }),
      ],
      ['trashed', () => ada.sdk.DELETE('/items', { body: { itemIds: [ulysses!] } })],
      ['restored', () => ada.sdk.POST('/trash/restore', { body: { type: 'item', id: ulysses! } })],
      ['moved to another list', () => ada.sdk.POST('/items/move', { body: { itemIds: [untitled!], listId: other.id, acknowledgeDataLoss: true } as never })],
      ['made a template', () => server.db('items').where({ id: emma }).update({ is_template: true })],
      ['deleted outright while live', () => server.db('items').where({ id: none }).del()],
      [
        'a number property removed',
        () => ada.sdk.PATCH(`/lists/${books.id}` as never, { body: { deletePropertyIds: [books.numbers[1]], acknowledgeDataLoss: true } as never } as never),
      ],
    ];
    for (const [step, run] of steps) {
      const before = await figures();
      const answer = (await run()) as { response?: Response } | number;
      if (typeof answer === 'object' && answer.response) expect({ step, status: answer.response.status }).toEqual({ step, status: 200 });
      if (step.startsWith('a title edit')) expect(await figures()).toEqual(before);
      await expectExact(books);
      await expectExact(other);
    }
    expect(await truth(books, books.options.Read!, true, pages)).toEqual({ count: 2, sum: 1142 });
  });

  it('stays exact under random writes', async () => {
    const list = await makeList('Random books');
    const labels = ['Read', 'Unread', 'Lent'];
    const ids = (
      await ada.sdk.POST('/items', { body: { listId: list.id, items: Array.from({ length: 12 }, (_, i) => ({ title: `b${i}` })) } as never })
    ).data!.items.map((i) => i.id);
    const write = fc.record({
      item: fc.nat(ids.length - 1),
      shelf: fc.option(fc.constantFrom(...labels)),
      pages: fc.option(fc.integer({ min: -5, max: 900 })),
      price: fc.option(fc.constantFrom(0.5, 1.25, 100)),
      archived: fc.option(fc.boolean(), { nil: undefined }),
      trash: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 6 }), async (writes) => {
        for (const w of writes) {
          const itemId = ids[w.item]!;
          const trashed = (await server.db('items').where({ id: itemId }).first('deleted_at')) as { deleted_at: Date | null };
          if (trashed.deleted_at) await ada.sdk.POST('/trash/restore', { body: { type: 'item', id: itemId } });
          await ada.sdk.PATCH('/items', { body: { items: [{ itemId, values: { Shelf: w.shelf, Pages: w.pages, Price: w.price } }] } as never });
          if (w.archived !== undefined) await ada.sdk.PATCH('/items', { body: { items: [{ itemId }], archived: w.archived } as never });
          if (w.trash) await ada.sdk.DELETE('/items', { body: { itemIds: [itemId] } });
        }
        await expectExact(list);
      }),
      { numRuns: 15, seed: 20261126 },
    );
  });

  it('counts a property that had values before it was tallied when it is registered: a retype to select', async () => {
    const list = await makeList('Retyped books');
    await ada.sdk.POST('/items', {
      body: {
        listId: list.id,
        items: [
          { title: 'a', values: { Shelf: 'Read', Pages: 10 } },
          { title: 'b', values: { Shelf: 'Read', Pages: 5 } },
          { title: 'c', values: { Shelf: 'Unread' } },
        ],
      } as never,
    });
    await retype(list, 'text');
    expect(await registration(list)).toBeUndefined();
    expect(await readTally(server.db, list.id, list.shelf, list.options.Read!, { includeArchived: false })).toBeNull();
    await retype(list, 'select');
    const reread = (await server.db('lists').where({ id: list.id }).first('properties')) as {
      properties: { id: string; options?: { id: string; label: string }[] }[];
    };
    const again: Shape = { ...list, options: Object.fromEntries(reread.properties.find((p) => p.id === list.shelf)!.options!.map((o) => [o.label, o.id])) };
    expect(await registration(again)).toBeDefined();
    expect(await truth(again, again.options.Read!, false, again.numbers[0])).toEqual({ count: 2, sum: 15 });
    await expectExact(again);
  });

  /**
   * A writer outside the list's lock (a statement on items alone: it moves an item carrying a
   * value into the list) racing the registration of the list's select (its properties changed
   * in a statement of their own, which locks no item), in the order `first` says.
   */
  async function race(name: string, first: 'writer' | 'registration') {
    const list = await makeList(name);
    await retype(list, 'text');
    const elsewhere = await makeList(`${name} elsewhere`);
    const made = await ada.sdk.POST('/items', { body: { listId: elsewhere.id, items: [{ title: 'moved' }] } as never });
    const moved = made.data!.items[0]!.id;
    await server.db.raw(`UPDATE items SET "values" = jsonb_build_object(?::text, 'opt-read', ?::text, 6) WHERE id = ?`, [list.shelf, list.numbers[0]!, moved]);
    const row = (await server.db('lists').where({ id: list.id }).first('properties')) as { properties: { id: string; type: string }[] };
    const properties = row.properties.map((p) => (p.id === list.shelf ? { ...p, type: 'select', options: [{ id: 'opt-read', label: 'Read' }] } : p));
    const writer = await server.db.transaction();
    try {
      const write = () => writer.raw('UPDATE items SET list_id = ? WHERE id = ?', [list.id, moved]);
      const register = () =>
        server
          .db('lists')
          .where({ id: list.id })
          .update({ properties: JSON.stringify(properties) });
      if (first === 'writer') {
        await write();
        // The registration waits on the list's row, which the writer's trigger holds, and counts what it committed.
        const registering = register();
        let done = false;
        void registering.then(() => {
          done = true;
        });
        let waiting = false;
        while (!done && !waiting) {
          const { rows } = await server.db.raw(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'update "lists"%'`,
          );
          waiting = (rows[0] as { n: number }).n > 0;
        }
        expect({ waiting, done }).toEqual({ waiting: true, done: false });
        await writer.commit();
        await registering;
      } else {
        await register();
        await write();
        await writer.commit();
      }
    } finally {
      if (!writer.isCompleted()) await writer.rollback();
    }
    const selected: Shape = { ...list, options: { Read: 'opt-read' } };
    expect(await registration(selected)).toBeDefined();
    expect(await truth(selected, 'opt-read', false, list.numbers[0])).toEqual({ count: 1, sum: 6 });
    await expectExact(selected);
  }

  it('counts a write that was under way when the select was registered', async () => {
    await race('Raced books', 'writer');
  });

  it('counts a write made after the select was registered', async () => {
    await race('Later books', 'registration');
  });

  it('counts what an import wrote before it named the list its select', async () => {
    // An import writes a list's items first and its properties last, in one transaction: the
    // select arrives with values already there, and is counted as it is registered.
    const csv = 'Name,Qty,Aisle\nMilk,2,Dairy\nEggs,12,Dairy\nBread,1,Bakery\n';
    const started = await ada.sdk.POST('/imports', {
      body: { format: 'csv', csv, listName: 'Pantry', columns: [{ column: 'Aisle', to: 'property', type: 'select' }] } as never,
    });
    expect(started.response.status).toBe(202);
    expect((await importEnded(ada, (started.data as { id: string }).id)).status).toBe('succeeded');
    const row = (await server.db('lists').where({ owner_id: ada.userId, name: 'Pantry' }).whereNull('deleted_at').first('id', 'properties')) as {
      id: string;
      properties: { id: string; name: string; type: string; options?: { id: string; label: string }[] }[];
    };
    const aisle = row.properties.find((p) => p.name === 'Aisle')!;
    const pantry: Shape = {
      id: row.id,
      shelf: aisle.id,
      options: Object.fromEntries(aisle.options!.map((o) => [o.label, o.id])),
      numbers: row.properties.filter((p) => p.type === 'number').map((p) => p.id),
    };
    expect(pantry.numbers).toHaveLength(1);
    expect(await registration(pantry)).toBeDefined();
    await expectExact(pantry);
    expect(await truth(pantry, pantry.options.Dairy!, false, pantry.numbers[0])).toEqual({ count: 2, sum: 14 });
    const dairy = await ada.sdk.POST('/items/query', {
      body: { listId: pantry.id, mode: 'sum', sumPropertyId: 'Qty', where: [{ property: 'Aisle', op: 'eq', value: 'Dairy' }] } as never,
    });
    expect({ count: dairy.data!.count, sum: dairy.data!.sum }).toEqual({ count: 2, sum: 14 });
  });

  it("drops a retyped property's figures with its registration", async () => {
    const list = await makeList('Dropped books');
    await ada.sdk.POST('/items', { body: { listId: list.id, items: [{ title: 'a', values: { Shelf: 'Read', Pages: 1 } }] } as never });
    const generation = (await registration(list))!.generation;
    expect(Number(((await server.db('value_tallies').where({ generation }).count('* as n').first()) as { n: string }).n)).toBe(2);
    await retype(list, 'text');
    expect(await registration(list)).toBeUndefined();
    expect(await server.db('value_tallies').where({ generation })).toEqual([]);
  });

  it('lets two writers into one list change the same option, one after the other', async () => {
    const list = await makeList('Busy books');
    const made = await ada.sdk.POST('/items', { body: { listId: list.id, items: [{ title: 'a' }, { title: 'b' }] } as never });
    const [a, b] = made.data!.items.map((i) => i.id);
    const set = (id: string, pages: number) => ada.sdk.PATCH('/items', { body: { items: [{ itemId: id, values: { Shelf: 'Read', Pages: pages } }] } as never });
    const answers = await Promise.all([set(a!, 7), set(b!, 7)]);
    expect(answers.map((r) => (r as { response: Response }).response.status)).toEqual([200, 200]);
    expect(await readTally(server.db, list.id, list.shelf, list.options.Read!, { includeArchived: false, sumPropertyId: list.numbers[0] })).toMatchObject({
      count: 2,
      sum: 14,
    });
    await expectExact(list);
  });
});
