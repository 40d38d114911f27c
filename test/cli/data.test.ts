/**
 * `listkeeper export` and `listkeeper import` with the built command against a running
 * service: a workspace saved to a file and imported into another account with progress on
 * standard error, a CSV previewed (nothing written) and imported with a column mapping, a
 * Todoist file recognised by its header, one list exported as CSV, and a refused import
 * explained with a non-zero exit.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { childEnv } from '../support/env.js';
import { useTestServer, type TestAccount } from '../support/server.js';
import { startTestJobs } from '../support/jobs.js';
import { seedWorkspace } from '../support/import-sample.js';
import type { Jobs } from '../../src/jobs/queue.js';

const root = path.resolve(import.meta.dirname ?? '.', '../..');
const bin = path.join(root, 'bin/listkeeper.js');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

describe('listkeeper export and import', () => {
  const { server, ada, account } = useTestServer({
    accounts: ['Ada', 'Bea'],
    beforeClose: async () => {
      await jobs.stop();
    },
  });
  let jobs: Jobs;
  let bea: TestAccount;
  let dir: string;
  beforeAll(async () => {
    if (!existsSync(path.join(root, 'dist/src/cli/main.js'))) throw new Error('dist/ is missing: run `npx tsc -p tsconfig.build.json` before this suite.');
    jobs = await startTestJobs(server);
    bea = account('Bea');
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-cli-data-'));
    await seedWorkspace(ada);
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function cli(who: TestAccount, args: string[]): Promise<Ran> {
    const env = childEnv({ LISTKEEPER_URL: server.baseUrl, LISTKEEPER_KEY: who.key, XDG_CONFIG_HOME: dir });
    return new Promise((resolve) => {
      execFile(process.execPath, [bin, ...args], { cwd: dir, env }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  it('saves a workspace to a file and imports it into another account, showing progress', async () => {
    const saved = await cli(ada, ['export', '-o', 'ada.json']);
    expect(saved).toMatchObject({ code: 0, stdout: 'Exported 4 lists and 8 items to ada.json.\n' });
    const doc = JSON.parse(await readFile(path.join(dir, 'ada.json'), 'utf8')) as { format: string; lists: unknown[] };
    expect(doc).toMatchObject({ format: 'listkeeper.export', lists: expect.any(Array) });

    const imported = await cli(bea, ['import', 'ada.json']);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toMatch(/^Importing: 0 of 8 items \(queued\)$/m);
    expect(imported.stdout).toContain('Import succeeded: 8 of 8 items.\n');
    expect(imported.stdout).toMatch(/^ {2}Wines: 2 added, 0 updated \(list [0-9a-f-]{36}\)$/m);
    const lists = (await bea.sdk.GET('/lists', {})).data!.lists;
    expect(lists.map((l) => [l.name, l.itemCount])).toContainEqual(['Wines', 2]);
  });

  it('previews a CSV without writing, then imports it with a mapping, and exports the list as CSV', async () => {
    await writeFile(
      path.join(dir, 'books.csv'),
      'Book,Pages,Shelf,Thoughts\nDune,412,Sci-fi,great\nEmma,474,Classics,\nHeat,300,Sci-fi,\nLolita,336,Classics,\n',
    );
    const before = (await bea.sdk.GET('/lists', {})).data!.total;
    const preview = await cli(bea, ['import', 'books.csv', '--map', 'Thoughts=body', '--preview']);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toContain('Would import 4 items (nothing written yet).');
    expect(preview.stdout).toMatch(/^Book +title +Dune \| Emma \| Heat$/m);
    expect(preview.stdout).toMatch(/^Pages +property Pages \(number\) +412 \| 474 \| 300$/m);
    expect(preview.stdout).toMatch(/^Shelf +property Shelf \(select\) +Sci-fi \| Classics$/m);
    expect(preview.stdout).toContain("A new list 'books': 4 items; new properties: Pages (number), Shelf (select).");
    expect(preview.stdout).toContain('  - Dune — Pages: 412; Shelf: Sci-fi');
    expect((await bea.sdk.GET('/lists', {})).data!.total).toBe(before);

    const done = await cli(bea, ['import', 'books.csv', '--map', 'Thoughts=body', '--name', 'Books']);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^ {2}Books: 4 added, 0 updated/m);

    const csv = await cli(bea, ['export', '--list', 'Books', '-o', '-']);
    expect(csv.code).toBe(0);
    const [header, ...rows] = parse(csv.stdout) as string[][];
    expect(header!.slice(1, 5)).toEqual(['Title', 'body', 'Pages', 'Shelf']);
    expect(rows.map((r) => r.slice(1, 5))).toEqual([
      ['Dune', 'great', '412', 'Sci-fi'],
      ['Emma', '', '474', 'Classics'],
      ['Heat', '', '300', 'Sci-fi'],
      ['Lolita', '', '336', 'Classics'],
    ]);
  });

  it('recognises a Todoist file by its header', async () => {
    await writeFile(
      path.join(dir, 'Errands.csv'),
      'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE\ntask,Post the parcel,,2,1,,,,en,\n',
    );
    const done = await cli(bea, ['import', 'Errands.csv', '--json']);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ format: 'todoist', status: 'succeeded', lists: [{ name: 'Errands', created: 1 }] });
  });

  it('explains a refused import and exits non-zero', async () => {
    await writeFile(path.join(dir, 'due.csv'), 'Title,Due\nSomething,tomorrow\n');
    const refused = await cli(bea, ['import', 'due.csv', '--list', 'Notes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/'Notes' keeps no status and due date/);
    const missing = await cli(bea, ['import', 'nowhere.csv']);
    expect(missing).toMatchObject({ code: 1, stderr: 'listkeeper: Cannot read nowhere.csv: no such file.\n' });
  });
});
