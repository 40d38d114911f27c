/**
 * The SDK as an integrator gets it: `npm pack`, the tarball installed in a fresh project, every
 * example of sdk/README.md type-checked with `strict` and `exactOptionalPropertyTypes` against
 * the packed .d.ts, then run against a test server: retries against a real 429, paging over
 * 500 items and a chat, a webhook delivered by the server and verified, a person signed in
 * through the OAuth helper (the browser's part played by the test).
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { useDeliveryServer } from '../support/events.js';
import { authorizeInBrowser, HttpBrowser } from '../support/oauth.js';
import type { TestAccount } from '../support/server.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname ?? '.', '../..');

/** The ```ts blocks of the README, with the heading they stand under. */
async function readmeExamples(): Promise<{ heading: string; code: string }[]> {
  const text = await readFile(path.join(root, 'sdk/README.md'), 'utf8');
  const examples: { heading: string; code: string }[] = [];
  let heading = '';
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.startsWith('## ')) heading = lines[i]!.slice(3);
    if (lines[i] === '```ts') {
      const end = lines.indexOf('```', i + 1);
      examples.push({ heading, code: lines.slice(i + 1, end).join('\n') });
      i = end;
    }
  }
  return examples;
}

describe('sdk/README.md examples', () => {
  const { server } = useDeliveryServer({ env: { RATE_LIMIT_PER_MINUTE: '60', EMBEDDINGS: 'none' }, search: true, accounts: [] });
  let dir: string;
  let examples: { heading: string; code: string }[];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-sdk-readme-'));
    examples = await readmeExamples();
    await run('npm', ['pack', '--pack-destination', dir], { cwd: path.join(root, 'sdk') });
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'))!;
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
    await run('npm', ['install', '--no-audit', '--no-fund', path.join(dir, tarball), '@types/node@22', 'oauth4webapi'], { cwd: dir });
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          outDir: 'out',
          types: ['node'],
        },
        include: ['example-*.ts'],
      }),
    );
    for (const [i, example] of examples.entries()) await writeFile(path.join(dir, `example-${i}.ts`), `${example.code}\nexport {};\n`);
    await run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir }).catch((err: { stdout?: string }) => {
      throw new Error(`the README's examples do not type-check:\n${err.stdout ?? String(err)}`);
    });
  }, 240000);
  // After useTestServer's afterAll (jest runs them in the order declared): the server is closed first.
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  /** Runs example i with its own account (each has its own rate limit) and returns its output lines. */
  async function runExample(heading: string, before?: (account: TestAccount) => Promise<void>): Promise<string[]> {
    const i = examples.findIndex((e) => e.heading === heading);
    expect(i).toBeGreaterThanOrEqual(0);
    const account = await server.account(`Reader${i}`);
    await before?.(account);
    const { stdout } = await run(process.execPath, [path.join(dir, `out/example-${i}.js`)], {
      cwd: dir,
      env: { ...process.env, LK_URL: server.baseUrl, LK_KEY: account.key },
      timeout: 150000,
    });
    return stdout.trim().split('\n');
  }

  it('has an example for every feature, and all of them type-check strictly', () => {
    expect(examples.map((e) => e.heading)).toEqual([
      'Calls',
      'Errors that throw',
      'Retries and timeouts',
      'Paging',
      'Search',
      'Values by name',
      'Webhooks',
      'Signing in as a person (OAuth)',
    ]);
  });

  it('calls in both styles', async () => {
    const out = await runExample('Calls');
    expect(out[0]).toMatch(/^[0-9a-f-]{36} Tasks, Notes, Life Admin$/);
    expect(out[1]).toBe('true');
  }, 60000);

  it('throws NotFoundError with the status, code and request id', async () => {
    const [line] = await runExample('Errors that throw');
    expect(line).toMatch(/^404 notFound: .+ \(request [0-9a-f-]{36}\)$/);
  }, 60000);

  it('retries the calls a real 429 refused, after Retry-After', async () => {
    const [line] = await runExample('Retries and timeouts');
    expect(line).toBe('65 of 65 answered');
  }, 180000);

  it('pages through 500 items and a chat of 25 messages', async () => {
    const out = await runExample('Paging');
    expect(out).toEqual(['paged through 500 items', 'read 25 messages, the last: Chapter 25 read']);
  }, 120000);

  it('finds an item by words, a typo forgiven, with its list and page', async () => {
    let id = '';
    const out = await runExample('Search', async (account) => {
      const made = await account.sdk.POST('/items', { body: { listId: 'tasks', items: [{ title: 'Renew passport' }, { title: 'Water plants' }] } });
      id = made.data!.items[0]!.id;
      await server.pump!.drain();
    });
    expect(out).toEqual([`Renew passport (Tasks): ${server.baseUrl}/artifacts/${id}`]);
  }, 60000);

  it('maps values by name and option label', async () => {
    const [line] = await runExample('Values by name');
    expect(JSON.parse(line!)).toEqual({ Shelf: 'Read' });
  }, 60000);

  it('signs a person in through the browser and calls the API on the session', async () => {
    const i = examples.findIndex((e) => e.heading === 'Signing in as a person (OAuth)');
    const password = 'correct horse battery';
    const person = await server.account('Signer', password);
    const child = spawn(process.execPath, [path.join(dir, `out/example-${i}.js`)], { cwd: dir, env: { ...process.env, LK_URL: server.baseUrl } });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let address: string | undefined;
    for (let tries = 0; tries < 100 && !address; tries++) {
      address = /^Open (http\S+)$/m.exec(stdout)?.[1];
      if (!address) await new Promise((r) => setTimeout(r, 100));
    }
    expect(address).toBeDefined();
    // The person's part, in their browser: sign in, approve, and the redirect reaches the app.
    const { location } = await authorizeInBrowser(new HttpBrowser(server.baseUrl), address!, { email: person.email, password });
    await fetch(location!);
    expect(await exited).toBe(0);
    expect(stdout.trim().split('\n').at(-1)).toBe(`Signed in as ${person.email}`);
  }, 60000);

  it('verifies a webhook the server delivered', async () => {
    const [line] = await runExample('Webhooks');
    expect(line).toBe('task.awaitingAgent Scout');
  }, 90000);
});
