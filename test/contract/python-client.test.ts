/**
 * The spec outside TypeScript: openapi-python-client (pinned in the Makefile, in its own
 * virtualenv: `make python-client`) generates a Python client from the served openapi.json,
 * with no schema it has to drop, and test/contract/python_client_flow.py runs a small flow
 * with it against a test server: a list, items, a sum, a repeating task completed.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from '../support/env.js';
import { useTestServer } from '../support/server.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname ?? '.', '../..');
const VENV_BIN = path.join(root, '.venv-python-client/bin');

describe('a Python client generated from the served spec', () => {
  const { server, ada } = useTestServer();
  let dir: string;
  beforeAll(async () => {
    if (!existsSync(path.join(VENV_BIN, 'openapi-python-client')))
      throw new Error('openapi-python-client is missing: run `make python-client` (make test does) before this suite.');
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-python-client-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('generates every schema and runs a list, items, a sum and a repeating task through it', async () => {
    const spec = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
    expect(spec.status).toBe(200);
    await writeFile(path.join(dir, 'openapi.json'), await spec.text());
    // The generator formats its output with ruff, from the same virtualenv.
    const env = childEnv({ PATH: `${VENV_BIN}:${process.env.PATH ?? ''}` });
    const generated = await run(
      path.join(VENV_BIN, 'openapi-python-client'),
      ['generate', '--path', 'openapi.json', '--output-path', 'listkeeper_client', '--meta', 'none'],
      { cwd: dir, env, timeout: 120_000 },
    );
    // A schema it cannot generate is a warning, and the client goes without it.
    expect(`${generated.stdout}${generated.stderr}`).not.toMatch(/Warning|Unable to process/);

    const flow = await run(path.join(VENV_BIN, 'python'), [path.join(root, 'test/contract/python_client_flow.py')], {
      cwd: dir,
      env: childEnv({ PYTHONPATH: dir, LK_URL: server.baseUrl, LK_KEY: ada.key }),
      timeout: 60_000,
    });
    const result = JSON.parse(flow.stdout) as {
      listName: string;
      added: number;
      count: number;
      sum: number;
      task: { before: string; after: string; status: string };
    };
    expect(result).toMatchObject({ listName: 'Books', added: 3, count: 2, sum: 412 + 474 });
    // Completing a repeating task moves it to its next occurrence, open again.
    expect(result.task.status).toBe('todo');
    expect(Date.parse(result.task.after) - Date.parse(result.task.before)).toBe(24 * 3600 * 1000);
  }, 180_000);
});
