/**
 * export_workspace and the round trip: a seeded workspace exports as a document that its JSON
 * Schema (docs/export.schema.json) accepts; imported into a fresh account and exported again,
 * it is the same document but for ids, the export's time and the times of the import; an
 * import of the same document again updates instead of adding; another person's export never
 * shows this person's data.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { useTestServer, type TestAccount } from '../support/server.js';
import { startTestJobs } from '../support/jobs.js';
import { PNG } from '../support/images.js';
import { importEnded, seedWorkspace } from '../support/import-sample.js';
import type { Jobs } from '../../src/jobs/queue.js';
import type { WorkspaceExport } from '../../src/domain/transfer/export.js';

const schema = JSON.parse(readFileSync(new URL('../../docs/export.schema.json', import.meta.url), 'utf8')) as object;
const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

/** The document with what differs between two workspaces taken out: ids, attachment paths and links, and the times an import sets. */
function comparable(doc: WorkspaceExport, pathsOf: (path: string) => string) {
  return doc.lists.map(({ id: _id, items, ...list }) => ({
    ...list,
    items: items.map(({ id: _itemId, externalId: _externalId, updatedAt: _updatedAt, attachments, body, parentId, ...item }) => ({
      ...item,
      parent: parentId ? (items.find((i) => i.id === parentId)?.title ?? 'missing') : null,
      body: body?.replace(/listkeeper-attachment:\/\/attachment\/(\S+?)\)/g, (_m, path: string) => `attachment:${pathsOf(path)})`) ?? null,
      attachments: attachments?.map(({ bucketPath, url: _url, ...a }) => ({ ...a, bucketPath: pathsOf(bucketPath) })),
    })),
  }));
}

describe('export_workspace', () => {
  const { server, ada, account } = useTestServer({
    accounts: ['Ada', 'Bea', 'Cy'],
    beforeClose: async () => {
      await jobs.stop();
    },
  });
  let jobs: Jobs;
  let bea: TestAccount;
  beforeAll(async () => {
    jobs = await startTestJobs(server);
    bea = account('Bea');
    await seedWorkspace(ada);
  });

  const exportOf = async (who: TestAccount) => {
    const got = await who.sdk.GET('/export', {});
    expect(got.response.status).toBe(200);
    return got.data as WorkspaceExport;
  };

  it('exports every list and item with values, chats and signed attachment links, in the documented format', async () => {
    const doc = await exportOf(ada);
    expect(validate(doc)).toBe(true);
    expect(doc).toMatchObject({ format: 'listkeeper.export', version: 1, timeZone: 'Europe/London' });
    expect(doc.lists.map((l) => [l.name, l.hubList, l.items.length])).toEqual([
      ['Tasks', 'tasks', 5],
      ['Notes', 'notes', 1],
      ['Life Admin', 'lifeAdmin', 0],
      ['Wines', null, 2],
    ]);
    const [tasks, notes, , wines] = doc.lists;
    expect(tasks!.items.find((i) => i.title === 'Dentist')).toMatchObject({
      taskStatus: 'inProgress',
      dueAt: '2026-12-03T09:30:00.000Z',
      hasDueTime: true,
      favorited: true,
      assignedAgent: 'Planner',
      labels: ['health', 'errands'],
      reminderAt: '2026-12-03T09:00:00.000Z',
      chat: [{ authorKind: 'agent', authorName: 'Planner', text: 'Booked for 9:30.', needsInput: false }],
    });
    expect(tasks!.items.find((i) => i.title === 'Old errand')).toMatchObject({ externalId: 'todo-42', archivedAt: expect.any(String) });
    expect(tasks!.items.find((i) => i.title === 'Pay rent')).toMatchObject({ recurrence: 'FREQ=MONTHLY', hasDueTime: false });
    const dentistId = tasks!.items.find((i) => i.title === 'Dentist')!.id;
    expect(tasks!.items.find((i) => i.title === 'Find the insurance card')!.parentId).toBe(dentistId);
    expect(tasks!.items.find((i) => i.title === 'Filed the taxes')!.completedAt).toEqual(expect.any(String));
    const colour = wines!.properties.find((p) => p.name === 'Colour')!;
    const red = colour.options!.find((o) => o.label === 'Red')!;
    expect(red.color).toBe('red');
    expect(wines!.items[0]!.values[colour.id]).toBe(red.id);
    // A label written in another case takes the spelling already in use.
    expect(wines!.items[1]!.labels).toEqual(['errands']);
    const [attachment] = notes!.items[0]!.attachments!;
    expect(attachment).toMatchObject({ mimeType: 'image/png', bytes: PNG.length });
    // The link works without a token, for an hour: a copy of the file found later gives nothing away.
    const file = await fetch(attachment!.url);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);
    const lifetime = Number(new URL(attachment!.url).searchParams.get('expires')) * 1000 - Date.now();
    expect(lifetime).toBeGreaterThan(55 * 60 * 1000);
    expect(lifetime).toBeLessThanOrEqual(3600 * 1000);
  });

  it("round-trips: imported into a fresh account and exported again, the same document but for ids, import times and the other account's file", async () => {
    const first = await exportOf(ada);
    const started = await bea.sdk.POST('/imports', { body: { format: 'listkeeper', document: first } });
    expect(started.response.status).toBe(202);
    expect(started.data).toMatchObject({ status: 'queued', progress: { done: 0, total: 8 } });
    const ended = await importEnded(bea, started.data!.id);
    // Ada's picture stays Ada's: a signed link does not copy another account's file.
    const picture = first.lists[1]!.items[0]!.attachments![0]!;
    expect(ended).toMatchObject({
      status: 'succeeded',
      progress: { done: 8, total: 8 },
      warnings: [
        `'Notes': the attachment ${picture.url.split('?')[0]} was not brought over: it is another account's file (only your own files are read from this service).`,
      ],
    });
    expect(ended.lists.map((l) => [l.name, l.status, l.created, l.updated])).toEqual([
      ['Tasks', 'imported', 5, 0],
      ['Notes', 'imported', 1, 0],
      ['Life Admin', 'imported', 0, 0],
      ['Wines', 'imported', 2, 0],
    ]);

    const second = await exportOf(bea);
    expect(validate(second)).toBe(true);
    expect(second.lists.flatMap((l) => l.items.flatMap((i) => i.attachments ?? []))).toEqual([]);
    expect(await server.db('attachments').where({ owner_id: bea.userId })).toEqual([]);
    const withoutFiles: WorkspaceExport = {
      ...first,
      lists: first.lists.map((l) => ({ ...l, items: l.items.map(({ attachments: _files, ...item }) => item) })),
    };
    const same = (path: string) => path;
    expect(comparable(second, same)).toEqual(comparable(withoutFiles, same));
    // Each item keeps its externalId, or takes its exported id as one.
    const firstItems = first.lists.flatMap((l) => l.items);
    const secondItems = second.lists.flatMap((l) => l.items);
    expect(secondItems.map((i) => i.externalId)).toEqual(firstItems.map((i) => i.externalId ?? i.id));
  });

  it('merges on a second import of the same document: items are updated, not added twice, and chats not repeated', async () => {
    const doc = await exportOf(ada);
    const before = await exportOf(bea);
    const ended = await importEnded(bea, (await bea.sdk.POST('/imports', { body: { format: 'listkeeper', document: doc } })).data!.id);
    expect(ended.status).toBe('succeeded');
    expect(ended.lists.map((l) => [l.created, l.updated])).toEqual([
      [0, 5],
      [0, 1],
      [0, 0],
      [0, 2],
    ]);
    const after = await exportOf(bea);
    expect(after.lists.map((l) => l.items.length)).toEqual(before.lists.map((l) => l.items.length));
    expect(after.lists.map((l) => l.items.map((i) => i.chat?.length ?? 0))).toEqual(before.lists.map((l) => l.items.map((i) => i.chat?.length ?? 0)));
  });

  it('merges an export into the workspace it came from without adding anything', async () => {
    const doc = await exportOf(ada);
    const ended = await importEnded(ada, (await ada.sdk.POST('/imports', { body: { format: 'listkeeper', document: doc } })).data!.id);
    expect(ended.lists.map((l) => l.created)).toEqual([0, 0, 0, 0]);
    expect((await exportOf(ada)).lists.map((l) => l.items.length)).toEqual(doc.lists.map((l) => l.items.length));
  });

  it("reads the person's own files for their import, though the link expired or lost its signature", async () => {
    const doc = await exportOf(ada);
    const note = doc.lists[1]!.items[0]!;
    const picture = note.attachments![0]!;
    const { id: _id, externalId: _externalId, ...rest } = note;
    const copied: WorkspaceExport = {
      ...doc,
      lists: [
        {
          ...doc.lists[3]!,
          id: '00000000-0000-4000-8000-00000000c0de',
          name: 'Copies',
          hubList: null,
          properties: [],
          items: [
            {
              ...rest,
              id: '00000000-0000-4000-8000-00000000f11e',
              attachments: [{ ...picture, url: picture.url.replace(/expires=\d+&sig=.*$/, 'expires=1&sig=x') }],
            },
          ],
        },
      ],
    };
    const ended = await importEnded(ada, (await ada.sdk.POST('/imports', { body: { format: 'listkeeper', document: copied } })).data!.id);
    expect(ended).toMatchObject({ status: 'succeeded', warnings: [] });
    const copy = (await exportOf(ada)).lists.find((l) => l.name === 'Copies')!.items[0]!.attachments![0]!;
    expect(copy.bucketPath).toMatch(new RegExp(`^u/${ada.userId}/`));
    expect(copy.bucketPath).not.toBe(picture.bucketPath);
    expect(Buffer.from(await (await fetch(copy.url)).arrayBuffer())).toEqual(PNG);
  });

  it("shows only the caller's workspace", async () => {
    const doc = await exportOf(account('Cy'));
    expect(doc.lists.map((l) => [l.name, l.items.length])).toEqual([
      ['Tasks', 0],
      ['Notes', 0],
      ['Life Admin', 0],
    ]);
  });
});
