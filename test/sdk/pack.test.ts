/**
 * The published SDK as a consumer gets it: `npm pack`, install the tarball in a fresh folder,
 * type-check consumer files against the packed .d.ts (`strict`, `exactOptionalPropertyTypes`;
 * an ES module, a CommonJS one and the OAuth helper's entry), and run them against a running
 * server, on the machine's own Node where that is an older line than the project's (Node 20 on
 * CI), as the SDK promises to run there.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, rm, writeFile, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { useTestServer } from '../support/server.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname ?? '.', '../..');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

/** The consumers run on the machine's node when it is another one than the project's (an older line), else on this one. */
async function consumerNode(): Promise<string> {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate) || realpathSync(candidate) === realpathSync(process.execPath)) continue;
    return candidate;
  }
  return process.execPath;
}

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
    // oauth4webapi: the optional peer the OAuth helper's entry needs, installed as its README says.
    await run('npm', ['install', '--no-audit', '--no-fund', path.join(dir, tarball), 'oauth4webapi'], { cwd: dir });
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
          exactOptionalPropertyTypes: true,
          noEmit: false,
          outDir: 'out',
          lib: ['ES2022', 'DOM'],
          types: [],
        },
        include: ['consumer.ts', 'required.cts', 'sign-in.ts'],
      }),
    );
    // CommonJS: require() gets the same client, typed by the CommonJS declarations.
    await writeFile(
      path.join(dir, 'required.cts'),
      `import sdk = require('@listkeeper/sdk');
declare const process: { env: Record<string, string | undefined> };
const lk = sdk.createClient({ baseUrl: process.env.LK_URL!, token: process.env.LK_KEY!, throwOnError: true });
lk.lists.list().then(
  (answer) => console.log(JSON.stringify({ lists: answer.lists.length, isError: new sdk.NotFoundError('x', { status: 404, code: 'notFound' }) instanceof sdk.ListkeeperError })),
  (err: unknown) => { console.error(err); throw err; },
);
`,
    );
    // The OAuth helper's entry: a session becomes the client's token function.
    await writeFile(
      path.join(dir, 'sign-in.ts'),
      `import { createClient } from '@listkeeper/sdk';
import { sessionToken, type OAuthSession } from '@listkeeper/sdk/oauth';
declare const process: { env: Record<string, string | undefined> };
const session: OAuthSession = { accessToken: process.env.LK_KEY!, issuer: process.env.LK_URL!, tokenEndpoint: process.env.LK_URL + '/oauth/token', clientId: 'x', resource: process.env.LK_URL! };
const lk = createClient({ baseUrl: process.env.LK_URL!, token: sessionToken(session), throwOnError: true });
console.log(JSON.stringify({ email: (await lk.context.get()).user.email }));
`,
    );
    await run(process.execPath, [tsc, '-p', dir], { cwd: dir });
    const node = await consumerNode();
    const consumerEnv = { env: { ...process.env, LK_URL: server.baseUrl, LK_KEY: ada.key }, cwd: dir };
    const { stdout: nodeVersion } = await run(node, ['--version']);
    process.stdout.write(`SDK consumers run on Node ${nodeVersion}`);
    const { stdout } = await run(node, [path.join(dir, 'out/consumer.js')], consumerEnv);
    expect(JSON.parse(stdout)).toEqual({ list: 'From the SDK', added: 1, count: 1, missing: 'notFound' });
    const required = await run(node, [path.join(dir, 'out/required.cjs')], consumerEnv);
    expect(JSON.parse(required.stdout)).toEqual({ lists: 4, isError: true });
    const signedIn = await run(node, [path.join(dir, 'out/sign-in.js')], consumerEnv);
    expect(JSON.parse(signedIn.stdout)).toEqual({ email: ada.email });
  }, 180000);

  it('refuses a consumer that sends a wrong body type, an unknown status or a misspelt key', async () => {
    await writeFile(
      path.join(dir, 'wrong.ts'),
      `import { createClient } from '@listkeeper/sdk';
const lk = createClient({ baseUrl: 'x', token: 'y' });
await lk.POST('/lists', { body: { name: 5 } });
await lk.items.create({ items: [{ title: 'Milk', taskStatus: 'done' }] });
await lk.items.create({ items: [{ titel: 'Milk' }] });
`,
    );
    await writeFile(path.join(dir, 'tsconfig.wrong.json'), JSON.stringify({ extends: './tsconfig.json', include: ['wrong.ts'] }));
    const refused = (await run(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.wrong.json')], { cwd: dir }).catch((err: unknown) => err)) as {
      stdout: string;
    };
    // One error a line: the wrong type, a status the API does not have, a misspelt key.
    expect(refused.stdout).toMatch(/wrong\.ts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
    expect(refused.stdout).toMatch(/wrong\.ts\(4,\d+\): error TS2322: Type '"done"' is not assignable to type '"completed" \| "todo" \| "inProgress" \| null'/);
    expect(refused.stdout).toMatch(/wrong\.ts\(5,\d+\): error TS2561: Object literal may only specify known properties, but 'titel' does not exist/);
  }, 60000);
});
