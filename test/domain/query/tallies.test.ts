/**
 * The tallies (migration 20261126000300, src/domain/query/tallies.ts): query_items' count and
 * sum with one `eq` on a select, kept per option by deltas that writers append and a job
 * folds. Through every kind of write, before and after a fold, each figure is exactly what the
 * items say; a property with values before it was tallied is built, and the build waits for a
 * writer that could not have seen it registered (one newer than the newest ended transaction
 * too) but not for a transaction of another database; the fold leaves a building registration's
 * deltas alone and drops a dropped one's; two writers into one list never wait on each other.
 */
import { describe, it, expect, beforeAll, afterEach } from '@jest/globals';
import fc from 'fast-check';
import knex from 'knex';
import { pino } from 'pino';
import { useTestServer } from '../../support/server.js';
import { TEST_ENV } from '../../support/db.js';
import { startTestJobs } from '../../support/jobs.js';
import { importEnded } from '../../support/import-sample.js';
import type { Jobs } from '../../../src/jobs/queue.js';
import { buildTallies, foldTallies, readTally } from '../../../src/domain/query/tallies.js';
import { startTallies } from '../../../src/jobs/value-tallies.js';

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
  // A build runs every due registration of the database: one a failed test left waiting would be
  // counted by the next test's build.
  afterEach(async () => {
    await server.db('tallied_properties').where({ ready: false }).del();
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

  /**
   * Runs the build, `at` at once, until one run builds something or 5 s pass, and returns how many
   * registrations were built in all. A transaction of this suite's database that is open at the
   * build's first sight (the queue polling, a request finishing) holds it back a moment; one that
   * stays open is the test's to name.
   */
  async function buildSoon(at = 1): Promise<number> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const built = (await Promise.all(Array.from({ length: at }, () => buildTallies(server.db)))).reduce((a, b) => a + b, 0);
      if (built > 0 || Date.now() > deadline) return built;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const deltas = async () => Number(((await server.db('value_tally_deltas').count('* as n').first()) as { n: string }).n);
  const registration = async (list: Shape) =>
    (await server.db('tallied_properties').where({ list_id: list.id, property_id: list.shelf }).first()) as { generation: string; ready: boolean } | undefined;

  it('is exact through every kind of write, before and after a fold', async () => {
    const books = await makeList('Tallied books');
    const other = await makeList('Tallied elsewhere');
    expect(await registration(books)).toMatchObject({ ready: true });
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
    // One statement made five items: one delta per option and figure (a count and two sums for
    // Read and for Unread), not one per item.
    expect(await deltas()).toBe(6);
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
      ['a title edit writes no delta', () => ada.sdk.PATCH('/items', { body: { items: [{ itemId: dune, title: 'Dune (again)' }] } as never })],
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
      const before = await deltas();
      const answer = (await run()) as { response?: Response } | number;
      if (typeof answer === 'object' && answer.response) expect({ step, status: answer.response.status }).toEqual({ step, status: 200 });
      if (step.startsWith('a title edit')) expect(await deltas()).toBe(before);
      await expectExact(books);
      await expectExact(other);
    }
    expect(await truth(books, books.options.Read!, true, pages)).toEqual({ count: 2, sum: 1142 });

    // Folded: nothing left in deltas, and the same figures from value_tallies alone.
    expect(await foldTallies(server.db)).toBeGreaterThan(0);
    expect(await deltas()).toBe(0);
    await expectExact(books);
    await expectExact(other);
    // A fold takes any batch, in as many runs as it needs.
    await ada.sdk.PATCH('/items', {
      body: {
        items: [
          { itemId: dune, values: { Shelf: 'Unread' } },
          { itemId: ulysses, values: { Pages: 1 } },
        ],
      } as never,
    });
    const pending = await deltas();
    expect(pending).toBeGreaterThan(1);
    expect(await foldTallies(server.db, 1)).toBe(1);
    expect(await deltas()).toBe(pending - 1);
    await expectExact(books);
    while ((await foldTallies(server.db, 1)) > 0);
    await expectExact(books);
  });

  it('stays exact under random writes and folds', async () => {
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
      fold: fc.boolean(),
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
          if (w.fold) await foldTallies(server.db);
        }
        await expectExact(list);
      }),
      { numRuns: 15, seed: 20261126 },
    );
  });

  it('builds a property that had values before it was tallied, after every writer that could have missed it', async () => {
    const list = await makeList('Built books');
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
    const [c] = (await server.db('items').where({ list_id: list.id, title: 'c' }).select('id')) as { id: string }[];
    // As before the migration: the list's select is not tallied.
    await server.db('tallied_properties').where({ list_id: list.id }).del();
    expect(await readTally(server.db, list.id, list.shelf, list.options.Read!, { includeArchived: false })).toBeNull();

    // A writer whose trigger runs before the registration exists writes no delta for it.
    const writer = await server.db.transaction();
    await writer.raw(`UPDATE items SET "values" = "values" || jsonb_build_object(?::text, ?::text) WHERE id = ?`, [list.shelf, list.options.Read!, c!.id]);
    await server.db('tallied_properties').insert({ list_id: list.id, property_id: list.shelf, ready: false });
    // Not ready: read another way.
    expect(await readTally(server.db, list.id, list.shelf, list.options.Read!, { includeArchived: false })).toBeNull();
    // The build waits while that writer is open: built now, it would miss its change.
    expect(await buildTallies(server.db)).toBe(0);
    expect(await buildTallies(server.db)).toBe(0);
    expect(await registration(list)).toMatchObject({ ready: false });
    await writer.commit();
    expect(await buildSoon()).toBe(1);
    expect(await registration(list)).toMatchObject({ ready: true });
    expect(await truth(list, list.options.Read!, false)).toMatchObject({ count: 3 });
    await expectExact(list);

    // A retype to select registers a property that already has values: built the same way.
    await retype(list, 'text');
    expect(await registration(list)).toBeUndefined();
    await retype(list, 'select');
    const reread = (await server.db('lists').where({ id: list.id }).first('properties')) as {
      properties: { id: string; options?: { id: string; label: string }[] }[];
    };
    const again: Shape = { ...list, options: Object.fromEntries(reread.properties.find((p) => p.id === list.shelf)!.options!.map((o) => [o.label, o.id])) };
    expect(await registration(again)).toMatchObject({ ready: false });
    // No writer open now: built.
    expect(await buildSoon()).toBe(1);
    await expectExact(again);
    expect(await truth(again, again.options.Read!, false)).toMatchObject({ count: 3 });
  });

  /** A list whose select has values and no registration, as before the migration; returns the list and its item without a Read. */
  async function untallied(name: string): Promise<{ list: Shape; unread: string }> {
    const list = await makeList(name);
    const made = await ada.sdk.POST('/items', {
      body: {
        listId: list.id,
        items: [
          { title: 'a', values: { Shelf: 'Read', Pages: 4 } },
          { title: 'b', values: { Shelf: 'Unread' } },
        ],
      } as never,
    });
    await server.db('tallied_properties').where({ list_id: list.id }).del();
    return { list, unread: made.data!.items[1]!.id };
  }

  it('waits for a writer that took its id after the registration took its own, and wrote before it committed', async () => {
    const { list, unread } = await untallied('Late books');
    // The registration's transaction takes its id first; the writer takes a newer one and
    // writes while the registration is uncommitted, so its trigger sees none. Once the
    // registration commits, the newest ended transaction is older than the open writer.
    const registering = await server.db.transaction();
    const writer = await server.db.transaction();
    try {
      await registering('tallied_properties').insert({ list_id: list.id, property_id: list.shelf, ready: false });
      await writer.raw(`UPDATE items SET "values" = "values" || jsonb_build_object(?::text, ?::text) WHERE id = ?`, [list.shelf, list.options.Read!, unread]);
      await registering.commit();
      // Waiting on the snapshot's xmax (one past the newest ended id) could build here and miss
      // the writer: it does whenever no newer transaction of the cluster ended in between.
      expect(await buildTallies(server.db)).toBe(0);
      expect(await registration(list)).toMatchObject({ ready: false });
      await writer.commit();
    } finally {
      if (!registering.isCompleted()) await registering.rollback();
      if (!writer.isCompleted()) await writer.rollback();
    }
    expect(await buildSoon()).toBe(1);
    expect(await truth(list, list.options.Read!, false)).toMatchObject({ count: 2 });
    await expectExact(list);
  });

  it("is not held back by a transaction open in another of the cluster's databases", async () => {
    const { list } = await untallied('Neighbour books');
    // The database the test databases are made from: another database of the same cluster.
    const neighbour = knex({ client: 'pg', connection: process.env[TEST_ENV.url], pool: { min: 1, max: 1 } });
    const open = await neighbour.transaction();
    try {
      // It holds a transaction id older than the registration's for the whole build, as a long
      // job of another service sharing the cluster would.
      const { xid } = (await open.raw('SELECT pg_current_xact_id()::text AS xid')).rows[0] as { xid: string };
      const older = await server.db.transaction(async (trx) => {
        await trx('tallied_properties').insert({ list_id: list.id, property_id: list.shelf, ready: false });
        return ((await trx.raw('SELECT ?::xid8 < pg_current_xact_id() AS older', [xid])).rows[0] as { older: boolean }).older;
      });
      expect(older).toBe(true);
      expect(await buildSoon()).toBe(1);
      await expectExact(list);
    } finally {
      await open.rollback();
      await neighbour.destroy();
    }
  });

  it('counts what an import wrote before it named the list its select', async () => {
    // An import writes a list's items first and its properties last, in one transaction: the
    // select arrives with values already there, so it waits for the build.
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
    expect(await registration(pantry)).toMatchObject({ ready: false });
    expect(await buildSoon()).toBe(1);
    await expectExact(pantry);
    expect(await truth(pantry, pantry.options.Dairy!, false, pantry.numbers[0])).toEqual({ count: 2, sum: 14 });
    const dairy = await ada.sdk.POST('/items/query', {
      body: { listId: pantry.id, mode: 'sum', sumPropertyId: 'Qty', where: [{ property: 'Aisle', op: 'eq', value: 'Dairy' }] } as never,
    });
    expect({ count: dairy.data!.count, sum: dairy.data!.sum }).toEqual({ count: 2, sum: 14 });
  });

  it('never waits for a list change that holds a registration', async () => {
    const list = await makeList('Held books');
    await server.db('tallied_properties').where({ list_id: list.id }).update({ ready: false, waits_for: null });
    // update_list's trigger deletes the registrations of dropped selects, holding them until it commits.
    const change = await server.db.transaction();
    try {
      await change('tallied_properties').where({ list_id: list.id }).del();
      const run = buildTallies(server.db);
      const waited = await Promise.race([run.then(() => false), new Promise((r) => setTimeout(() => r(true), 3000))]);
      expect(waited).toBe(false);
      expect(await run).toBe(0);
    } finally {
      await change.rollback();
    }
    // Seen by a later run.
    expect(await buildSoon()).toBe(1);
    await expectExact(list);
  });

  it("leaves a building registration's deltas to its build, and drops a dropped one's with its figures", async () => {
    const list = await makeList('Dropped books');
    const made = await ada.sdk.POST('/items', { body: { listId: list.id, items: [{ title: 'a', values: { Shelf: 'Read', Pages: 1 } }] } as never });
    const itemId = made.data!.items[0]!.id;
    await foldTallies(server.db);
    const generation = (await registration(list))!.generation;
    expect(Number(((await server.db('value_tallies').where({ generation }).count('* as n').first()) as { n: string }).n)).toBe(2);

    // Two processes building at once: one builds, the other leaves it.
    await server.db('tallied_properties').where({ generation }).update({ ready: false, waits_for: null });
    expect(await buildSoon(3)).toBe(1);
    await expectExact(list);

    // Not ready (as after the migration): the fold leaves its deltas.
    await server.db('tallied_properties').where({ generation }).update({ ready: false });
    await ada.sdk.PATCH('/items', { body: { items: [{ itemId, values: { Pages: 2 } }] } as never });
    const waiting = await server.db('value_tally_deltas').where({ generation }).count('* as n').first();
    expect(Number((waiting as { n: string }).n)).toBeGreaterThan(0);
    await foldTallies(server.db);
    expect(await server.db('value_tally_deltas').where({ generation }).count('* as n').first()).toEqual(waiting);
    expect(await buildSoon()).toBe(1);
    expect(await server.db('value_tally_deltas').where({ generation })).toEqual([]);
    await expectExact(list);

    // Retyped away from select: the registration goes, its figures with it, and the fold drops its late deltas.
    await server.db('value_tally_deltas').insert({ generation, text_value: list.options.Read!, summed: '', archived: false, n: 1, total: 0 });
    await retype(list, 'text');
    expect(await registration(list)).toBeUndefined();
    expect(await server.db('value_tallies').where({ generation })).toEqual([]);
    await foldTallies(server.db);
    expect(await server.db('value_tally_deltas').where({ generation })).toEqual([]);
    expect(await server.db('value_tallies').where({ generation })).toEqual([]);
  });

  it('lets two writers into one list change the same option at once', async () => {
    const list = await makeList('Busy books');
    const made = await ada.sdk.POST('/items', { body: { listId: list.id, items: [{ title: 'a' }, { title: 'b' }] } as never });
    const [a, b] = made.data!.items.map((i) => i.id);
    await foldTallies(server.db);
    const set = (trx: typeof server.db, id: string) =>
      trx.raw(`UPDATE items SET "values" = "values" || jsonb_build_object(?::text, ?::text, ?::text, 7) WHERE id = ?`, [
        list.shelf,
        list.options.Read!,
        list.numbers[0]!,
        id,
      ]);
    const first = await server.db.transaction();
    const second = await server.db.transaction();
    try {
      await set(first, a!);
      // A counter row per option would make this wait for the first to commit.
      await second.raw(`SET LOCAL lock_timeout = '1s'`);
      await set(second, b!);
      await first.commit();
      await second.commit();
    } finally {
      if (!first.isCompleted()) await first.rollback();
      if (!second.isCompleted()) await second.rollback();
    }
    expect(await readTally(server.db, list.id, list.shelf, list.options.Read!, { includeArchived: false, sumPropertyId: list.numbers[0] })).toMatchObject({
      count: 2,
      sum: 14,
    });
  });

  it('folds and builds in the background', async () => {
    const list = await makeList('Background books');
    await ada.sdk.POST('/items', { body: { listId: list.id, items: [{ title: 'a', values: { Shelf: 'Lent', Pages: 3 } }] } as never });
    await server.db('tallied_properties').where({ list_id: list.id }).update({ ready: false });
    const loop = startTallies(server.db, pino({ level: 'silent' }), 20);
    try {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && ((await deltas()) > 0 || !(await registration(list))!.ready)) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await loop.stop();
    }
    expect(await deltas()).toBe(0);
    expect(await registration(list)).toMatchObject({ ready: true });
    await expectExact(list);
  });
});
