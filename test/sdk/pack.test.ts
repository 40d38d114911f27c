/**
 * The published SDK as a consumer gets it: `npm pack`, install the tarball in a fresh folder,
 * type-check a consumer file against the packed .d.ts, and run it against a running server.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { useTestServer } from '../support/server.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname ?? '.', '../..');

describe('@listkeeper/sdk package', () => {
  const { server, ada } = useTestServer();
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-sdk-'));
  });
  // After useTestServer's afterAll (jest runs them in the order declared): the server is closed first.
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('packs, installs, type-checks and runs a consumer', async () => {
    await run('npm', ['pack', '--pack-destination', dir], { cwd: path.join(root, 'sdk') });
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'))!;
    expect(tarball).toMatch(/^listkeeper-sdk-\d+\.\d+\.\d+\.tgz$/);
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', path.join(dir, tarball)], { cwd: dir });
    await writeFile(
      path.join(dir, 'consumer.ts'),
      `import { createClient, type Schemas } from '@listkeeper/sdk';
declare const process: { env: Record<string, string | undefined> };
const lk = createClient({ baseUrl: process.env.LK_URL!, token: process.env.LK_KEY! });
const made = await lk.POST('/lists', { body: { name: 'From the SDK', properties: [{ name: 'Pages', type: 'number' }] } });
if (made.error) throw new Error(made.error.error);
const list: Schemas['List'] = made.data;
const items = await lk.POST('/items', { body: { listId: list.id, items: [{ title: 'Dune', values: { Pages: 412 } }] } });
const open = await lk.GET('/items', { params: { query: { listId: list.id, taskStatus: ['todo', 'inProgress'] } } });
const missing = await lk.GET('/items/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
console.log(JSON.stringify({ list: list.name, added: items.data?.added, count: open.data?.count, missing: missing.error?.code }));
`,
    );
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: false,
          outDir: 'out',
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        include: ['consumer.ts'],
      }),
    );
    await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });
    const { stdout } = await run(process.execPath, [path.join(dir, 'out/consumer.js')], {
      cwd: dir,
      env: { ...process.env, LK_URL: server.baseUrl, LK_KEY: ada.key },
    });
    expect(JSON.parse(stdout)).toEqual({ list: 'From the SDK', added: 1, count: 1, missing: 'notFound' });
  }, 180000);

  it('refuses a consumer that sends a wrong body type', async () => {
    await writeFile(
      path.join(dir, 'wrong.ts'),
      `import { createClient } from '@listkeeper/sdk';\nconst lk = createClient({ baseUrl: 'x', token: 'y' });\nawait lk.POST('/lists', { body: { name: 5 } });\n`,
    );
    await writeFile(path.join(dir, 'tsconfig.wrong.json'), JSON.stringify({ extends: './tsconfig.json', include: ['wrong.ts'] }));
    await expect(
      run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.wrong.json')], { cwd: dir }),
    ).rejects.toMatchObject({ stdout: expect.stringContaining("Type 'number' is not assignable to type 'string'") });
  }, 60000);
});
