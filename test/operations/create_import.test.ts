/**
 * create_import: a CSV with a mapping (and guesses for the columns left out), a Todoist project
 * CSV written from Todoist's documented format (sections, priorities, labels, subtasks,
 * comments, dates in words), each list all or nothing (a list that fails half-way leaves no
 * row behind while the others land), progress readable while a list is written, and the
 * refusals of input the import cannot take (409 with the field at fault: the schema allows
 * these combinations, the import does not).
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { startTestJobs, waitFor } from '../support/jobs.js';
import { importEnded } from '../support/import-sample.js';
import type { Jobs } from '../../src/jobs/queue.js';
import type { WorkspaceExport } from '../../src/domain/transfer/export.js';
import { localNow } from '../../src/domain/time.js';
import { pino } from 'pino';
import knexFactory from 'knex';
import { ImportInterrupted, runImport } from '../../src/domain/transfer/import-run.js';
import { startImport } from '../../src/domain/transfer/imports.js';

const TODOIST = [
  'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,DURATION,DURATION_UNIT',
  'meta,view_style,board,,,,,,,,,',
  'section,Groceries,,,,,,,,,,',
  'task,Buy milk @errands,Semi-skimmed,1,1,Ada (123),,tomorrow,en,Europe/London,,',
  'note,Get two if on offer,,,,Ada (123),,,,,,',
  'task,Ask for the receipt,,4,2,Ada (123),,,,,,',
  ',,,,,,,,,,,',
  'section,Home,,,,,,,,,,',
  'task,Water plants @home @weekly,,2,1,Ada (123),Bea (456),every monday,en,Europe/London,15,minute',
  'task,File taxes,,3,1,Ada (123),,2027-01-31,en,Europe/London,,',
  'task,Call mum,,,1,Ada (123),,Dec 24 2026 5pm,en,Europe/London,,',
].join('\n');

describe('create_import', () => {
  const { server, ada, account } = useTestServer({
    accounts: ['Ada', 'Bea'],
    beforeClose: async () => {
      await jobs.stop();
    },
  });
  let jobs: Jobs;
  let bea: TestAccount;
  beforeAll(async () => {
    jobs = await startTestJobs(server);
    bea = account('Bea');
  });

  const start = async (who: TestAccount, body: Record<string, unknown>) => {
    const res = await who.sdk.POST('/imports', { body: body as never });
    return { status: res.response.status, data: res.data, error: res.error as { code: string; error: string; field?: string } | undefined };
  };
  const itemsOf = async (who: TestAccount, listId: string) =>
    (await who.sdk.GET('/items', { params: { query: { listId, valuesBy: 'name', limit: 200, taskStatus: ['todo', 'inProgress', 'completed'] } } })).data!.items;

  it('imports a CSV into a new list: mapped columns as asked, the others guessed', async () => {
    const csv =
      'Name,Qty,Aisle,Due,Done,Notes,Link\nMilk,2,Dairy,2026-12-01,no,semi-skimmed,https://shop.example/milk\nBread,1,Bakery,tomorrow 9am,yes,,\nEggs,12,Dairy,,,,\nJam,1,Bakery,,,,\n';
    const started = await start(ada, { format: 'csv', csv, listName: 'Shopping', columns: [{ column: 'Notes', to: 'body' }] });
    expect(started.status).toBe(202);
    const ended = await importEnded(ada, started.data!.id);
    expect(ended).toMatchObject({
      status: 'succeeded',
      format: 'csv',
      progress: { done: 4, total: 4 },
      lists: [{ name: 'Shopping', status: 'imported', created: 4 }],
    });
    const list = (await ada.sdk.GET('/lists', {})).data!.lists.find((l) => l.name === 'Shopping')!;
    expect(list.role).toBe('tasks');
    expect(list.properties.map((p) => [p.name, p.type])).toEqual([
      ['Status', 'status'],
      ['Due date', 'date'],
      ['Qty', 'number'],
      ['Aisle', 'select'],
      ['Link', 'url'],
    ]);
    const items = await itemsOf(ada, list.id);
    const milk = items.find((i) => i.title === 'Milk')!;
    expect(milk).toMatchObject({
      body: 'semi-skimmed',
      taskStatus: 'todo',
      hasDueTime: false,
      values: { Qty: 2, Aisle: 'Dairy', Link: 'https://shop.example/milk' },
    });
    const bread = items.find((i) => i.title === 'Bread')!;
    expect(bread).toMatchObject({ taskStatus: 'completed', hasDueTime: true });
    expect(localNow(new Date(bread.dueAt!), 'Europe/London').localTime).toBe('09:00');
  });

  it('imports a Todoist project: sections, priorities, labels, subtasks, comments, due dates and a repeating date', async () => {
    const started = await start(ada, { format: 'todoist', csv: TODOIST, listName: 'From Todoist' });
    expect(started.status).toBe(202);
    const ended = await importEnded(ada, started.data!.id);
    expect(ended.status).toBe('succeeded');
    expect(ended.warnings).toEqual([]);
    const list = (await ada.sdk.GET('/lists', {})).data!.lists.find((l) => l.name === 'From Todoist')!;
    expect(list).toMatchObject({ role: 'tasks', layout: 'kanban' });
    expect(list.properties.map((p) => [p.name, p.type, p.options?.map((o) => o.label)])).toEqual([
      ['Status', 'status', ['To do', 'In progress', 'Done']],
      ['Due date', 'date', undefined],
      ['Priority', 'select', ['P1', 'P2', 'P3', 'P4']],
      ['Section', 'select', ['Groceries', 'Home']],
      ['Responsible', 'text', undefined],
      ['Duration (minutes)', 'number', undefined],
    ]);
    const items = await itemsOf(ada, list.id);
    const byTitle = new Map(items.map((i) => [i.title, i]));
    expect([...byTitle.keys()].sort()).toEqual(['Ask for the receipt', 'Buy milk', 'Call mum', 'File taxes', 'Water plants']);
    const tomorrow = localNow(new Date(Date.now() + 24 * 3600 * 1000), 'Europe/London').today;
    expect(byTitle.get('Buy milk')).toMatchObject({
      body: 'Semi-skimmed',
      hasDueTime: false,
      labels: ['errands'],
      values: { Priority: 'P1', Section: 'Groceries' },
    });
    expect(localNow(new Date(byTitle.get('Buy milk')!.dueAt!), 'Europe/London').today).toBe(tomorrow);
    // INDENT 2: a subtask of the task above.
    expect(byTitle.get('Ask for the receipt')).toMatchObject({ parentId: byTitle.get('Buy milk')!.id, values: { Priority: 'P4', Section: 'Groceries' } });
    const plants = byTitle.get('Water plants')!;
    expect(plants.values).toEqual({ Priority: 'P2', Section: 'Home', Responsible: 'Bea', 'Duration (minutes)': 15 });
    expect(plants.labels).toEqual(['home', 'weekly']);
    // A repeating date is the task's recurrence, due at its next occurrence.
    expect(plants).toMatchObject({ body: null, hasDueTime: false, recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO', text: 'every week on Monday', completions: 0 } });
    expect(new Date(plants.dueAt!).getUTCDay()).toBe(1);
    expect(byTitle.get('File taxes')).toMatchObject({ hasDueTime: false, values: { Priority: 'P3', Section: 'Home' } });
    expect(localNow(new Date(byTitle.get('File taxes')!.dueAt!), 'Europe/London').today).toBe('2027-01-31');
    expect(byTitle.get('Call mum')).toMatchObject({ dueAt: '2026-12-24T17:00:00.000Z', hasDueTime: true, values: { Section: 'Home' } });
    // The comment is a message in the task's chat, by its author.
    const chat = await ada.sdk.GET('/items/{id}/messages', { params: { path: { id: byTitle.get('Buy milk')!.id } } });
    expect(chat.data!.messages.map((m) => [m.authorKind, m.authorName, m.text])).toEqual([['person', 'Ada', 'Get two if on offer']]);
  });

  it("keeps the repeating rules of the service's own export, whatever their parts' order", async () => {
    const made = await ada.sdk.POST('/items', {
      body: { listId: 'tasks', items: [{ title: 'Water plants', dueAt: '2026-12-07T08:00:00Z', recurrence: 'every 2 weeks on Monday at 8' }] },
    });
    const rule = made.data!.items[0]!.recurrence!.rule;
    expect(rule).toBe('INTERVAL=2;FREQ=WEEKLY;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0');
    const document = (await ada.sdk.GET('/export', {})).data!;
    const ended = await importEnded(bea, (await start(bea, { format: 'listkeeper', document })).data!.id);
    expect(ended.warnings.filter((w) => w.includes('Water plants'))).toEqual([]);
    const tasks = (await bea.sdk.GET('/items', { params: { query: { listId: 'tasks' } } })).data!.items;
    expect(tasks.find((i) => i.title === 'Water plants')!.recurrence).toMatchObject({ rule, text: 'every 2 weeks on Monday at 08:00' });
  });

  it('writes each list whole or not at all: a list that fails half-way leaves nothing, the others land', async () => {
    // A list of Bea's own named like the document's tasks list, without task columns: that list cannot be imported.
    await bea.sdk.POST('/lists', { body: { name: 'Chores', properties: [{ name: 'Room', type: 'text' }] } });
    const many = Array.from({ length: 300 }, (_, i) => ({ id: `src-${i}`, title: i === 280 ? 'boom' : `Row ${i}`, body: null, values: {} }));
    const doc: WorkspaceExport = {
      format: 'listkeeper.export',
      version: 1,
      exportedAt: new Date().toISOString(),
      timeZone: 'Europe/London',
      lists: [
        {
          id: 'a',
          name: 'Chores',
          layout: 'list',
          hubList: null,
          properties: [
            { id: 'status', name: 'Status', type: 'status' },
            { id: 'dueDate', name: 'Due', type: 'date' },
          ],
          items: [{ id: 'c1', title: 'Hoover', body: null, values: {} }],
        },
        { id: 'b', name: 'Big list', layout: 'list', hubList: null, properties: [], items: many },
        { id: 'c', name: 'Small list', layout: 'list', hubList: null, properties: [], items: [{ id: 's1', title: 'Fine', body: null, values: {} }] },
      ],
    };
    // A row that makes the database refuse it, after the first 250 of its list were written.
    await server.db.raw(`CREATE FUNCTION test_refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.title = 'boom' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`);
    await server.db.raw(`CREATE TRIGGER test_refuse_boom BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION test_refuse_boom()`);
    try {
      const ended = await importEnded(bea, (await start(bea, { format: 'listkeeper', document: doc })).data!.id);
      expect(ended.status).toBe('partial');
      expect(ended.lists).toEqual([
        {
          name: 'Chores',
          listId: null,
          status: 'failed',
          created: 0,
          updated: 0,
          error: "'Chores' keeps no status and due date, and the imported list 'Chores' has tasks; rename one of them and import again.",
        },
        {
          name: 'Big list',
          listId: null,
          status: 'failed',
          created: 0,
          updated: 0,
          error: expect.stringMatching(/error in the service .* nothing of it was written/),
        },
        { name: 'Small list', listId: expect.any(String), status: 'imported', created: 1, updated: 0, error: null },
      ]);
      expect(ended.progress).toEqual({ done: 1, total: 302 });
    } finally {
      await server.db.raw('DROP TRIGGER test_refuse_boom ON items; DROP FUNCTION test_refuse_boom()');
    }
    const lists = (await bea.sdk.GET('/lists', {})).data!.lists;
    expect(lists.map((l) => l.name)).not.toContain('Big list');
    const [left] = await server.db('items').where({ owner_id: bea.userId }).whereLike('title', 'Row %').count({ n: '*' });
    expect(Number(left!.n)).toBe(0);
    expect(lists.find((l) => l.name === 'Chores')!.itemCount).toBe(0);
  });

  it('shows progress while a list is written', async () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ id: `p-${i}`, title: i === 300 ? 'slow' : `Item ${i}`, body: null, values: {} }));
    const doc: WorkspaceExport = {
      format: 'listkeeper.export',
      version: 1,
      exportedAt: new Date().toISOString(),
      timeZone: 'Europe/London',
      lists: [{ id: 'p', name: 'Progress', layout: 'list', hubList: null, properties: [], items: many }],
    };
    await server.db.raw(`CREATE FUNCTION test_slow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.title = 'slow' THEN PERFORM pg_sleep(3); END IF; RETURN NEW; END $$`);
    await server.db.raw(`CREATE TRIGGER test_slow BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION test_slow()`);
    try {
      const id = (await start(bea, { format: 'listkeeper', document: doc })).data!.id;
      const midway = await waitFor(async () => {
        const got = (await bea.sdk.GET('/imports/{id}', { params: { path: { id } } })).data!;
        return got.progress.done > 0 ? got : undefined;
      });
      expect(midway).toMatchObject({ status: 'running', progress: { done: 250, total: 400 }, startedAt: expect.any(String), finishedAt: null });
      expect(await importEnded(bea, id)).toMatchObject({ status: 'succeeded', progress: { done: 400, total: 400 } });
    } finally {
      await server.db.raw('DROP TRIGGER test_slow ON items; DROP FUNCTION test_slow()');
    }
  });

  it('refuses input it cannot take, naming the field, before anything is queued', async () => {
    const cases: [Record<string, unknown>, number, string, RegExp][] = [
      [{ format: 'listkeeper' }, 409, 'document', /reads the export document from 'document'/],
      [{ format: 'csv', listName: 'X' }, 409, 'csv', /reads the file's text from 'csv'/],
      [{ format: 'csv', csv: 'a\n1\n', listId: 'tasks', listName: 'X' }, 409, 'listName', /not both/],
      [{ format: 'todoist', csv: 'a\n1\n', columns: [] }, 409, 'columns', /does not go with format 'todoist'/],
      [{ format: 'csv', csv: 'a,b\n"1,2\n' }, 409, 'csv', /does not parse/],
      [
        { format: 'csv', csv: 'Title\nx\n', columns: [{ column: 'Price', to: 'skip' }] },
        409,
        'columns[0].column',
        /names the column 'Price', which the file does not have; its columns: Title/,
      ],
      [{ format: 'csv', csv: 'Title\nx\n', listName: 'tasks' }, 409, 'listName', /You have a list named 'Tasks' already/],
      [{ format: 'todoist', csv: 'Title\nx\n' }, 409, 'csv', /not a Todoist CSV: it has no TYPE column/],
      [{ format: 'csv', csv: 'Title,Due\nx,tomorrow\n', listId: 'notes' }, 409, 'columns', /'Notes' keeps no status and due date/],
    ];
    const before = await server.db('imports').where({ owner_id: ada.userId }).count({ n: '*' });
    for (const [body, status, field, message] of cases) {
      const res = await start(ada, body);
      expect([res.status, res.error?.field, res.error?.error]).toEqual([status, field, expect.stringMatching(message)]);
    }
    expect(await server.db('imports').where({ owner_id: ada.userId }).count({ n: '*' })).toEqual(before);
  });
});

describe('an import when its process shuts down', () => {
  // No job runner: the test runs the import itself.
  const { server, ada } = useTestServer();
  const exportOf = (name: string, items: number): WorkspaceExport => ({
    format: 'listkeeper.export',
    version: 1,
    exportedAt: new Date().toISOString(),
    timeZone: 'Europe/London',
    lists: [
      {
        id: name,
        name,
        layout: 'list',
        hubList: null,
        properties: [],
        items: Array.from({ length: items }, (_, i) => ({ id: `${name}-${i}`, title: i === 300 ? 'slow' : `Item ${i}`, body: null, values: {} })),
      },
    ],
  });
  /** The import stored as create_import stores it, with the queue left out (the test is the job). */
  const stored = async (doc: WorkspaceExport) => {
    const queue = { sendInTransaction: async () => null } as unknown as Jobs;
    return (await startImport(server.db, queue, { userId: ada.userId, clientName: null }, { format: 'listkeeper', document: doc } as never, new Date())).id;
  };
  const itemsIn = async (listName: string) =>
    Number((await server.db('items').join('lists', 'lists.id', 'items.list_id').where('lists.name', listName).count({ n: '*' }).first())?.n);
  const doneOf = async (id: string) => (await server.db('imports').where({ id }).first('done')).done as number;
  /** Runs `work` while the insert of the item titled 'slow' (the 301st of a list: its second chunk) takes `seconds`. */
  const withSlowItem = async (seconds: number, work: () => Promise<void>) => {
    await server.db.raw(`CREATE FUNCTION test_slow_item() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.title = 'slow' THEN PERFORM pg_sleep(${seconds}); END IF; RETURN NEW; END $$`);
    await server.db.raw(`CREATE TRIGGER test_slow_item BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION test_slow_item()`);
    try {
      await work();
    } finally {
      await server.db.raw('DROP TRIGGER test_slow_item ON items; DROP FUNCTION test_slow_item()');
    }
  };

  it('stops between two chunks when told, rolls the list back and queues the import again; the retry writes it whole', async () => {
    const doc = exportOf('Stopped', 400);
    doc.lists.unshift(exportOf('First', 3).lists[0]!);
    const id = await stored(doc);
    const deps = { db: server.db, config: server.config, log: pino({ level: 'silent' }), now: () => new Date() };
    await withSlowItem(1, async () => {
      const stopping = new AbortController();
      const running = runImport(deps, id, stopping.signal).catch((err: Error) => err);
      // The first list has landed and the second is in its second chunk, held by the trigger: the process stops.
      await waitFor(async () => ((await doneOf(id)) >= 253 ? true : undefined));
      stopping.abort();
      expect(await running).toBeInstanceOf(ImportInterrupted);
      expect(await server.db('imports').where({ id }).first('status', 'started_at', 'done', 'lists')).toEqual({
        status: 'queued',
        started_at: null,
        done: 3,
        lists: [expect.objectContaining({ name: 'First', status: 'imported', created: 3 }), expect.objectContaining({ name: 'Stopped', status: 'pending' })],
      });
      expect([await itemsIn('First'), await itemsIn('Stopped')]).toEqual([3, 0]);
    });
    // The job's retry goes on with the list that was stopped, and leaves the one that landed.
    await runImport(deps, id);
    expect(await server.db('imports').where({ id }).first('status', 'done')).toEqual({ status: 'succeeded', done: 403 });
    expect([await itemsIn('First'), await itemsIn('Stopped')]).toEqual([3, 400]);
  }, 30_000);

  it('lets the database pool close while a list is being written, and the list still lands whole', async () => {
    const id = await stored(exportOf('Shutdown', 400));
    // A pool of its own, with a short acquire timeout, so what asks it for a connection after it closed fails soon (knex: 60 s).
    const pool = knexFactory({ client: 'pg', connection: server.dbUrl, pool: { min: 0, max: 2 }, acquireConnectionTimeout: 2000 });
    try {
      await withSlowItem(2, async () => {
        const running = runImport({ db: pool, config: server.config, log: pino({ level: 'silent' }), now: () => new Date() }, id).catch((err: Error) => err);
        // The first 250 are written and counted; the list's transaction is now in the second chunk, held by the trigger.
        await waitFor(async () => ((await doneOf(id)) >= 250 ? true : undefined));
        // A shutdown closes the pool meanwhile. The list's transaction used to wait for a second connection to report
        // progress, which a closing pool never gives: the close waited out the acquire timeout, and the list then
        // failed whole.
        await pool.destroy();
        await running;
      });
      expect(await itemsIn('Shutdown')).toBe(400);
      expect((await server.db('imports').where({ id }).first('lists')).lists).toEqual([
        expect.objectContaining({ name: 'Shutdown', status: 'imported', created: 400 }),
      ]);
    } finally {
      await pool.destroy();
    }
  }, 30_000);
});
