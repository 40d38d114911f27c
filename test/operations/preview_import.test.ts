/**
 * preview_import: what an import would write, with nothing written: each column's mapping and
 * guessed type with a few of its values, the new properties, the first items as they would be
 * stored; for an export document, which lists it would merge into.
 */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';

describe('preview_import', () => {
  const { server, ada } = useTestServer();

  const countAll = async () => {
    const [lists] = await server.db('lists').where({ owner_id: ada.userId }).count({ n: '*' });
    const [items] = await server.db('items').where({ owner_id: ada.userId }).count({ n: '*' });
    const [imports] = await server.db('imports').where({ owner_id: ada.userId }).count({ n: '*' });
    return [Number(lists!.n), Number(items!.n), Number(imports!.n)];
  };

  it('shows how each CSV column is read and the first items, and writes nothing', async () => {
    const before = await countAll();
    const csv = 'Title,Price,Colour,Due,Website\nRioja,12.50,Red,2026-12-01,https://a.example\nCava,"1,200",White,,\nTawny,9,Red,,\nFino,7,White,soon-ish,\n';
    const res = await ada.sdk.POST('/imports/preview', { body: { format: 'csv', csv, listName: 'Cellar', columns: [{ column: 'Website', to: 'skip' }] } });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({
      format: 'csv',
      total: 4,
      columns: [
        { column: 'Title', to: 'title', property: null, type: null, samples: ['Rioja', 'Cava', 'Tawny'] },
        { column: 'Price', to: 'property', property: 'Price', type: 'number', samples: ['12.50', '1,200', '9'] },
        { column: 'Colour', to: 'property', property: 'Colour', type: 'select', samples: ['Red', 'White'] },
        { column: 'Due', to: 'dueAt', property: null, type: null, samples: ['2026-12-01', 'soon-ish'] },
        { column: 'Website', to: 'skip', property: null, type: null, samples: ['https://a.example'] },
      ],
      lists: [
        {
          name: 'Cellar',
          listId: null,
          items: 4,
          newProperties: [
            { name: 'Status', type: 'status' },
            { name: 'Due date', type: 'date' },
            { name: 'Price', type: 'number' },
            { name: 'Colour', type: 'select' },
          ],
          sample: [
            { title: 'Rioja', body: null, taskStatus: null, dueAt: '2026-12-01', values: { Price: '12.50', Colour: 'Red' } },
            { title: 'Cava', body: null, taskStatus: null, dueAt: null, values: { Price: '1,200', Colour: 'White' } },
            { title: 'Tawny', body: null, taskStatus: null, dueAt: null, values: { Price: '9', Colour: 'Red' } },
            { title: 'Fino', body: null, taskStatus: null, dueAt: null, values: { Price: '7', Colour: 'White' } },
          ],
        },
      ],
      warnings: ["Row 5: 'soon-ish' is not a date; the task has no due date."],
    });
    expect(await countAll()).toEqual(before);
  });

  it("reads a CSV due date-time without an offset in the person's zone", async () => {
    const res = await ada.sdk.POST('/imports/preview', { body: { format: 'csv', csv: 'Title,Due\nSummer dentist,2026-07-01T09:00\n', listName: 'Dentist' } });
    expect(res.response.status).toBe(200);
    // Ada is in Europe/London, an hour ahead of UTC in July.
    expect(res.data!.lists[0]!.sample.map((i) => i.dueAt)).toEqual(['2026-07-01T08:00:00.000Z']);
  });

  it('names the existing lists an export document would merge into', async () => {
    const res = await ada.sdk.POST('/imports/preview', {
      body: {
        format: 'listkeeper',
        document: {
          format: 'listkeeper.export',
          version: 1,
          exportedAt: '2026-11-25T10:00:00Z',
          timeZone: 'UTC',
          lists: [
            {
              id: 'x',
              name: 'Tasks',
              layout: 'list',
              hubList: 'tasks',
              properties: [
                { id: 'status', name: 'Status', type: 'status' },
                { id: 'dueDate', name: 'Due date', type: 'date' },
                { id: 'p_size', name: 'Size', type: 'select', options: [{ id: 'o_s', label: 'S' }] },
              ],
              items: [{ id: 'i1', title: 'Hang the picture', body: null, values: { p_size: 'o_s' }, taskStatus: 'todo' }],
            },
            { id: 'y', name: 'Films', layout: 'table', hubList: null, properties: [], items: [] },
          ],
        },
      },
    });
    const tasksId = (await ada.sdk.GET('/lists', {})).data!.tasksListId;
    expect(res.data!.lists).toEqual([
      {
        name: 'Tasks',
        listId: tasksId,
        items: 1,
        newProperties: [{ name: 'Size', type: 'select' }],
        sample: [{ title: 'Hang the picture', body: null, taskStatus: 'todo', dueAt: null, values: { Size: 'S' } }],
      },
      { name: 'Films', listId: null, items: 0, newProperties: [], sample: [] },
    ]);
  });

  it('refuses a document whose time zone is not one, and writes nothing', async () => {
    const before = await countAll();
    const document = { format: 'listkeeper.export' as const, version: 1 as const, exportedAt: '2026-11-25T10:00:00Z', timeZone: '', lists: [] };
    for (const timeZone of ['', 'Mars/Olympus']) {
      const res = await ada.sdk.POST('/imports/preview', { body: { format: 'listkeeper', document: { ...document, timeZone } } });
      expect(res.response.status).toBe(409);
      expect(res.error).toMatchObject({
        code: 'toolError',
        field: 'document.timeZone',
        error: expect.stringContaining(`timeZone '${timeZone}' is not an IANA time zone`),
      });
      const created = await ada.sdk.POST('/imports', { body: { format: 'listkeeper', document: { ...document, timeZone } } });
      expect(created.response.status).toBe(409);
    }
    expect(await countAll()).toEqual(before);
  });

  const preview = (csv: string, format: 'csv' | 'todoist' = 'csv') => ada.sdk.POST('/imports/preview', { body: { format, csv, listName: 'Big' } });

  it('reads a due date in words only up to the 64 characters the API takes, in a CSV and in a Todoist file', async () => {
    const long = `tomorrow ${'at noon '.repeat(37_500)}`;
    const started = Date.now();
    const csv = await preview(`Title,Due\nLong,"${long}"\nShort,tomorrow\n`);
    expect(csv.response.status).toBe(200);
    expect(csv.data!.lists[0]!.sample.map((i) => i.dueAt === null)).toEqual([true, false]);
    expect(csv.data!.warnings).toEqual([expect.stringMatching(/^Row 2: 'tomorrow at noon .{30,60}…' is not a date; the task has no due date\.$/)]);
    const todoist = await preview(`TYPE,CONTENT,DATE\ntask,Long,"${long}"\ntask,Short,tomorrow\n`, 'todoist');
    expect(todoist.response.status).toBe(200);
    expect(todoist.data!.warnings).toEqual([expect.stringMatching(/^Row 2: DATE 'tomorrow at noon .{30,60}…' is not a date listkeeper reads/)]);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("guesses a multiSelect from the joiner a list's CSV writes", async () => {
    const res = await preview('Title,Tags,Place\nDune,"sf, classic",Paris\nEmma,classic,"Paris, France"\nSolaris,sf,Lyon\nOdyssey,"classic, sf",Lyon\n');
    expect(res.data!.columns.find((c) => c.column === 'Tags')).toMatchObject({ to: 'property', type: 'multiSelect' });
    expect(res.data!.lists[0]!.newProperties).toContainEqual({ name: 'Tags', type: 'multiSelect' });
    // A comma in some values only is not a joiner: each label would be seen once.
    expect(res.data!.columns.find((c) => c.column === 'Place')).toMatchObject({ type: 'text' });
  });

  it('refuses what a list cannot hold before reading the file: columns, properties, rows, a cell', async () => {
    const before = await countAll();
    const started = Date.now();
    const wide = await preview(`${Array.from({ length: 60_000 }, (_, i) => `c${i}`).join(',')}\n${'x,'.repeat(59_999)}x\n`);
    expect(wide.response.status).toBe(409);
    expect(wide.error).toMatchObject({
      code: 'toolError',
      field: 'csv',
      error: expect.stringMatching(/^Row 1 of the CSV has more than 66 cells; a list holds at most 60 properties/),
    });
    const wideRow = await preview(`a,b\n${'x,'.repeat(100_000)}\n`);
    expect(wideRow.error).toMatchObject({ field: 'csv', error: expect.stringMatching(/^Row 2 of the CSV has more than 66 cells/) });
    // 62 columns fit the file's limit; the first is the title and the other 61 would be properties.
    const many = await preview(`${Array.from({ length: 62 }, (_, i) => `c${i}`).join(',')}\n${'v,'.repeat(61)}v\n`);
    expect(many.response.status).toBe(409);
    expect(many.error).toMatchObject({
      field: 'columns',
      error: "The CSV would give the new list 61 properties; a list holds at most 60: skip some columns (to: skip) or map them to the list's properties.",
    });
    const rows = await preview(`a\n${'x\n'.repeat(100_001)}`);
    expect(rows.error).toMatchObject({ field: 'csv', error: 'The CSV has more than 100000 rows, the most one import reads into a list: split the file.' });
    const cell = await preview(`a,b\n"${'y'.repeat(1_000_001)}",z\n`);
    expect(cell.error).toMatchObject({ field: 'csv', error: 'Row 2 of the CSV has a cell longer than 1000000 characters, the most a cell holds.' });
    const refused = await ada.sdk.POST('/imports', {
      body: { format: 'csv', csv: `${Array.from({ length: 62 }, (_, i) => `c${i}`).join(',')}\nx\n`, listName: 'Big' },
    });
    expect(refused.response.status).toBe(409);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await countAll()).toEqual(before);
  });
});
