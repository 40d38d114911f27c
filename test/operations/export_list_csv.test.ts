/**
 * export_list_csv: one list as CSV that a CSV parser reads back: a header of the title label
 * and the property names, select options by label, dates as ISO 8601 (a date-only due date as
 * the person's date), through REST (text/csv) and the SDK (text). The CSV imports back into
 * the list it came from as a merge, and into a new list with the same values.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { useTestServer } from '../support/server.js';
import { startTestJobs } from '../support/jobs.js';
import { importEnded, seedWorkspace } from '../support/import-sample.js';
import type { Jobs } from '../../src/jobs/queue.js';

describe('export_list_csv', () => {
  const { server, ada, account } = useTestServer({
    accounts: ['Ada', 'Bea'],
    beforeClose: async () => {
      await jobs.stop();
    },
  });
  let jobs: Jobs;
  let winesId: string;
  beforeAll(async () => {
    jobs = await startTestJobs(server);
    await seedWorkspace(ada);
    winesId = (await ada.sdk.GET('/lists', {})).data!.lists.find((l) => l.name === 'Wines')!.id;
  });

  const csvOf = async (listId: string, key = ada.key) => {
    const res = await fetch(`${server.baseUrl}/api/v1/lists/${encodeURIComponent(listId)}/csv`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  it("writes the list's columns by name and its values as text", async () => {
    const res = await csvOf(winesId);
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/csv; charset=utf-8');
    const [header, ...rows] = parse(res.text) as string[][];
    expect(header).toEqual([
      'id',
      'Wine',
      'body',
      'Colour',
      'Notes',
      'Price',
      'Bought',
      'Tasted',
      'Shop',
      'Seller',
      'Region',
      'externalId',
      'createdAt',
      'updatedAt',
    ]);
    expect(rows.map((r) => r.slice(1, 11))).toEqual([
      ['Rioja', '', 'Red', 'Dry, Oaky', '12.5', '2026-10-01', 'true', 'https://wine.example/rioja', 'sam@wine.example', 'La Rioja'],
      ['Riesling', '', 'White', 'Fruity', '9', '', 'false', '', '', ''],
    ]);
  });

  it('writes the task columns: the status by label, a date-only due date as the date', async () => {
    const [header, ...rows] = parse((await csvOf('tasks')).text) as string[][];
    expect(header!.slice(0, 5)).toEqual(['id', 'Title', 'body', 'Status', 'Due date']);
    const byTitle = new Map(rows.map((r) => [r[1], r]));
    expect(byTitle.get('Dentist')!.slice(3, 5)).toEqual(['In progress', '2026-12-03T09:30:00.000Z']);
    expect(byTitle.get('Pay rent')!.slice(3, 5)).toEqual(['To do', '2026-12-01']);
    expect(byTitle.get('Old errand')![5]).toBe('todo-42');
  });

  it('answers the same text through the SDK', async () => {
    const viaSdk = await ada.sdk.lists.exportCsv({ id: winesId });
    expect(viaSdk.response.status).toBe(200);
    expect(viaSdk.data).toBe((await csvOf(winesId)).text);
  });

  it("answers 404 for a list that is not the caller's", async () => {
    const res = await csvOf(winesId, account('Bea').key);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toMatchObject({ code: 'notFound' });
  });

  it('imports back: into its own list as a merge (the id column matches), into a new list with the same values', async () => {
    const { text } = await csvOf(winesId);
    const again = await importEnded(ada, (await ada.sdk.POST('/imports', { body: { format: 'csv', csv: text, listId: winesId } })).data!.id);
    expect(again.lists).toEqual([{ name: 'Wines', listId: winesId, status: 'imported', created: 0, updated: 2, error: null }]);
    // The same rows into a new list of the same workspace: they are there already, and the import says so.
    const twice = await importEnded(ada, (await ada.sdk.POST('/imports', { body: { format: 'csv', csv: text, listName: 'Wines twice' } })).data!.id);
    expect(twice.lists[0]).toMatchObject({ status: 'imported', created: 0 });
    expect(twice.warnings).toEqual([
      expect.stringMatching(/'Rioja' is already in your workspace \(on another list, item /),
      expect.stringMatching(/'Riesling'/),
    ]);

    const bea = account('Bea');
    const copy = await importEnded(
      bea,
      (
        await bea.sdk.POST('/imports', {
          body: {
            format: 'csv',
            csv: text,
            listName: 'Wines again',
            columns: [
              { column: 'Colour', to: 'property', type: 'select' },
              { column: 'Notes', to: 'property', type: 'multiSelect' },
              { column: 'Tasted', to: 'property', type: 'checkbox' },
            ],
          },
        })
      ).data!.id,
    );
    expect(copy).toMatchObject({ status: 'succeeded', lists: [{ name: 'Wines again', created: 2 }] });
    const items = (await bea.sdk.GET('/items', { params: { query: { listId: copy.lists[0]!.listId!, valuesBy: 'name' } } })).data!.items;
    expect(items.map((i) => [i.title, i.values])).toEqual([
      [
        'Rioja',
        {
          Colour: 'Red',
          Notes: ['Dry', 'Oaky'],
          Price: 12.5,
          Bought: '2026-10-01',
          Tasted: true,
          Shop: 'https://wine.example/rioja',
          Seller: 'sam@wine.example',
          Region: 'La Rioja',
        },
      ],
      ['Riesling', { Colour: 'White', Notes: ['Fruity'], Price: 9, Tasted: false }],
    ]);
  });

  it('writes formulas as text (OWASP), reads them back unchanged, and guesses a multiSelect by its joiner', async () => {
    const books = (
      await ada.sdk.POST('/lists', {
        body: {
          name: 'Books',
          properties: [
            { name: 'Tags', type: 'multiSelect', options: ['sf', 'classic', 'poetry'] },
            { name: 'Balance', type: 'number' },
            { name: 'Note', type: 'text' },
          ],
        },
      })
    ).data!;
    const titles = ['=HYPERLINK("http://evil.example","x")', '+1+2', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd', "'=already quoted", 'Plain'];
    const made = await ada.sdk.POST('/items', {
      body: {
        listId: books.id,
        items: titles.map((title, n) => ({
          title,
          values: { Tags: n % 2 ? ['sf', 'classic'] : ['classic'], Balance: n % 2 ? -5 : 3, Note: n === 0 ? '=1+1' : 'fine' },
        })),
      },
    });
    expect(made.data!.failed).toEqual([]);
    const first = (await csvOf(books.id)).text;
    const [header, ...rows] = parse(first) as string[][];
    const col = (name: string) => header!.indexOf(name);
    // Each cell a spreadsheet would run starts with a quote; a number alone is written as it is.
    expect(rows.map((r) => r[1])).toEqual([
      '\'=HYPERLINK("http://evil.example","x")',
      "'+1+2",
      "'-2+3",
      "'@SUM(A1)",
      "'\tcmd",
      "'\rcmd",
      "''=already quoted",
      'Plain',
    ]);
    expect(rows.map((r) => r[col('Balance')])).toEqual(['3', '-5', '3', '-5', '3', '-5', '3', '-5']);
    expect(rows[0]![col('Note')]).toBe("'=1+1");
    expect(rows[1]![col('Tags')]).toBe('sf, classic');

    // Into another person's new list with no mapping: Tags is guessed a multiSelect of its labels, Balance a number.
    const bea = account('Bea');
    const preview = (await bea.sdk.POST('/imports/preview', { body: { format: 'csv', csv: first, listName: 'Books again' } })).data!;
    expect(preview.columns.find((c) => c.column === 'Tags')).toMatchObject({ to: 'property', type: 'multiSelect' });
    expect(preview.columns.find((c) => c.column === 'Balance')).toMatchObject({ to: 'property', type: 'number' });
    const copy = await importEnded(bea, (await bea.sdk.POST('/imports', { body: { format: 'csv', csv: first, listName: 'Books again' } })).data!.id);
    const copyId = copy.lists[0]!.listId!;
    const list = (await bea.sdk.GET('/lists', {})).data!.lists.find((l) => l.id === copyId)!;
    expect(list.properties.find((p) => p.name === 'Tags')).toMatchObject({
      type: 'multiSelect',
      options: [expect.objectContaining({ label: 'classic' }), expect.objectContaining({ label: 'sf' })],
    });
    const items = (await bea.sdk.GET('/items', { params: { query: { listId: copyId, valuesBy: 'name' } } })).data!.items;
    expect(items.map((i) => i.title).sort()).toEqual([...titles].sort());
    expect(items.find((i) => i.title === titles[0])!.values).toEqual({ Tags: ['classic'], Balance: 3, Note: '=1+1' });
    expect(items.find((i) => i.title === '+1+2')!.values).toEqual({ Tags: ['sf', 'classic'], Balance: -5, Note: 'fine' });

    // Exported again, every cell but the ids and dates is as the first time: no quote grows.
    const [, ...again] = parse((await csvOf(copyId, bea.key)).text) as string[][];
    const cells = (r: string[][]) => r.map((row) => row.slice(1, -3)).sort((a, b) => a[0]!.localeCompare(b[0]!));
    expect(cells(again)).toEqual(cells(rows));
  });
});
