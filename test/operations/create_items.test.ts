import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';

describe('create_items', () => {
  const { server, ada } = useTestServer();
  let booksId: string;
  beforeAll(async () => {
    const books = await create_list(server.context(ada), {
      name: 'Books',
      properties: [
        { name: 'Author', type: 'text' },
        { name: 'Pages', type: 'number' },
        { name: 'Shelf', type: 'select', options: ['Home', 'Office'] },
        { name: 'Tags', type: 'multiSelect', options: ['sci-fi'] },
        { name: 'Read', type: 'checkbox' },
      ],
    });
    booksId = books.id;
  });
  const ctx = () => server.context(ada);

  it('puts items on the Tasks list when no listId is given, as todo, with due dates as sent', async () => {
    const result = await create_items(ctx(), {
      items: [
        { title: 'Renew passport', dueAt: '2026-12-01T09:00:00Z' },
        { title: 'Call mum', dueAt: '2026-12-02' },
      ],
    });
    expect(result.listName).toBe('Tasks');
    expect(result.added).toBe(2);
    expect(result.items.map((i) => [i.title, i.taskStatus, i.dueAt, i.hasDueTime])).toEqual([
      ['Renew passport', 'todo', '2026-12-01T09:00:00.000Z', true],
      // A date alone is due at the start of that day in the person's time zone (Europe/London, UTC+0 in December).
      ['Call mum', 'todo', '2026-12-02T00:00:00.000Z', false],
    ]);
  });

  it('stores values by property id; select values by label or id; an unknown label becomes an option', async () => {
    const result = await create_items(ctx(), {
      listId: booksId,
      items: [
        {
          title: 'Dune',
          values: [
            { property: 'Author', value: 'Herbert' },
            { property: 'Pages', value: '412' },
            { property: 'Shelf', value: 'home' },
            { property: 'Tags', value: ['sci-fi', 'classic'] },
            { property: 'Read', value: true },
          ],
        },
      ],
    });
    const [props, item] = [result.properties, result.items[0]!];
    const id = (name: string) => props.find((p) => p.name === name)!.id;
    const option = (prop: string, label: string) => props.find((p) => p.name === prop)!.options!.find((o) => o.label === label)!.id;
    expect(item.values).toEqual({
      [id('Author')]: 'Herbert',
      [id('Pages')]: 412,
      [id('Shelf')]: option('Shelf', 'Home'),
      [id('Tags')]: [option('Tags', 'sci-fi'), option('Tags', 'classic')],
      [id('Read')]: true,
    });
  });

  it('reports a bad entry under failed and still lands the rest, in one call', async () => {
    const result = await create_items(ctx(), {
      listId: booksId,
      items: [
        { title: 'Good one' },
        { title: 'Bad pages', values: { Pages: 'many' } },
        { title: 'Unknown prop', values: { Colour: 'red' } },
        { title: 'Status on a book', taskStatus: 'todo' },
        { title: 'Also good', values: { Author: 'Le Guin' } },
      ],
    });
    expect(result.added).toBe(2);
    expect(result.items.map((i) => i.title)).toEqual(['Good one', 'Also good']);
    expect(result.failed.map((f) => f.index)).toEqual([1, 2, 3]);
    expect(result.failed[0]!.reason).toMatch(/'Pages' is a number property/);
    expect(result.failed[1]!.reason).toMatch(/unknown property 'Colour'; valid: Author, Pages, Shelf, Tags, Read/);
    expect(result.failed[2]!.reason).toMatch(/keeps no status/);
  });

  it("reads a date-time without an offset as the person's wall-clock time, whatever the server's zone", async () => {
    const serverZone = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo'; // the machine the server runs on is elsewhere; it must not matter
    try {
      const result = await create_items(ctx(), {
        items: [
          { title: 'Summer dentist', dueAt: '2026-07-01T09:00' },
          { title: 'Winter dentist', dueAt: '2026-12-01T09:30:15' },
        ],
      });
      // Ada is in Europe/London: nine in July is eight UTC (BST); in December London is UTC.
      expect(result.items.map((i) => [i.dueAt, i.hasDueTime])).toEqual([
        ['2026-07-01T08:00:00.000Z', true],
        ['2026-12-01T09:30:15.000Z', true],
      ]);
      // A date property's date-time without an offset is UTC (as query_items compares it), a leap
      // second the last millisecond before the next minute, a date alone a date.
      const log = await create_list(ctx(), { name: 'Visits', properties: [{ name: 'When', type: 'date' }] });
      const visits = await create_items(ctx(), {
        listId: log.id,
        items: ['2026-12-01T09:00', '2026-12-31T23:59:60Z', ' 2026-12-02 '].map((when, i) => ({
          title: `Visit ${i}`,
          values: [{ property: 'When', value: when }],
        })),
      });
      expect(visits.failed).toEqual([]);
      expect(visits.items.map((i) => Object.values(i.values)[0])).toEqual(['2026-12-01T09:00:00.000Z', '2026-12-31T23:59:59.999Z', '2026-12-02']);
    } finally {
      if (serverZone === undefined) delete process.env.TZ;
      else process.env.TZ = serverZone;
    }
  });

  it('refuses an unreadable dueAt for that entry only', async () => {
    const result = await create_items(ctx(), { items: [{ title: 'x', dueAt: 'whenever suits' }, { title: 'y' }] });
    expect(result.failed).toEqual([{ index: 0, reason: expect.stringMatching(/not an ISO 8601/), externalId: null }]);
    expect(result.added).toBe(1);
  });

  it('returns the item already made for a repeated externalId, also within one batch', async () => {
    const first = await create_items(ctx(), {
      items: [
        { title: 'Import 1', externalId: 'ext-1' },
        { title: 'Import 1 again', externalId: 'ext-1' },
      ],
    });
    expect(first.added).toBe(1);
    const again = await create_items(ctx(), { items: [{ title: 'Import 1 changed', externalId: 'ext-1' }] });
    expect(again.added).toBe(0);
    expect(again.existing.map((i) => [i.id, i.title])).toEqual([[first.items[0]!.id, 'Import 1']]);
  });

  it('merges into an existing item with matchOn: fills empty values and body, overwrites nothing', async () => {
    const made = await create_items(ctx(), { listId: booksId, items: [{ title: 'Emma', values: { Author: 'Austen' } }] });
    const merged = await create_items(ctx(), {
      listId: booksId,
      matchOn: ['Author'],
      items: [{ title: 'Emma (ignored)', body: 'A novel.', values: { Author: 'Austen', Pages: 474 } }],
    });
    expect(merged.mergedIds).toEqual([made.items[0]!.id]);
    expect(merged.added).toBe(0);
    const item = merged.items[0]!;
    expect(item.title).toBe('Emma');
    expect(item.body).toBe('A novel.');
    expect(Object.values(item.values)).toEqual(expect.arrayContaining(['Austen', 474]));
    const again = await create_items(ctx(), { listId: booksId, matchOn: ['Author'], items: [{ body: 'Other body', values: { Author: 'Austen', Pages: 1 } }] });
    expect(again.items[0]!.body).toBe('A novel.');
    expect(Object.values(again.items[0]!.values)).toContain(474);
  });

  it('refuses matchOn naming an unknown property for the whole call', async () => {
    const res = await ada.sdk.POST('/items', { body: { listId: booksId, matchOn: ['Colour'], items: [{ title: 'x' }] } });
    expect(res.response.status).toBe(409);
    expect(res.error).toMatchObject({ code: 'toolError', field: 'matchOn' });
    expect(res.error?.error).toMatch(/matchOn names unknown property 'Colour'/);
  });

  it('names ignored entry fields in unknownKeys', async () => {
    const result = await create_items(ctx(), { items: [{ title: 'x', priority: 'high' } as never] });
    expect(result.unknownKeys).toEqual(['priority']);
  });

  it("answers 400 for 101 entries and for a wrong JSON type, and 404 for another account's list", async () => {
    const many = await ada.sdk.POST('/items', { body: { items: Array.from({ length: 101 }, (_, i) => ({ title: `t${i}` })) } });
    expect(many.response.status).toBe(400);
    const wrongType = await ada.sdk.POST('/items', { body: { items: [{ title: 5 as never }] } });
    expect(wrongType.response.status).toBe(400);
    const bea = await server.account('Bea');
    const foreign = await bea.sdk.POST('/items', { body: { listId: booksId, items: [{ title: 'x' }] } });
    expect(foreign.response.status).toBe(404);
  });

  it('answers 201 through REST and the same rows through MCP', async () => {
    const rest = await ada.sdk.POST('/items', { body: { listId: 'notes', items: [{ title: 'Note A', body: '# Hi' }] } });
    expect(rest.response.status).toBe(201);
    expect(rest.data!.items[0]).toMatchObject({ title: 'Note A', taskStatus: null, dueAt: null });
    const mcp = await (await server.mcp(ada)).callTool({ name: 'create_items', arguments: { listId: 'notes', items: [{ title: 'Note B', body: '# Hi' }] } });
    expect((mcp.structuredContent as { items: { taskStatus: null }[] }).items[0]).toMatchObject({ title: 'Note B', taskStatus: null });
  });

  it('writes 100 entries in one call', async () => {
    const result = await create_items(ctx(), { listId: booksId, items: Array.from({ length: 100 }, (_, i) => ({ title: `Book ${i}`, values: { Pages: i } })) });
    expect(result.added).toBe(100);
    expect(result.items[99]!.title).toBe('Book 99');
  });
});
