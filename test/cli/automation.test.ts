/** The `listkeeper automation` and `listkeeper memory` commands, run as a person would, against the test database. */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from '../support/env.js';
import { useTestServer } from '../support/server.js';
import { list_automations } from '../../src/operations/list_automations.js';
import { get_context } from '../../src/operations/get_context.js';

const run = promisify(execFile);

describe('listkeeper automation and memory', () => {
  const { server, ada } = useTestServer();
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lk-cli-'));
  });
  // Runs after useTestServer's afterAll (jest runs them in the order declared): the server is closed first.
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
    try {
      const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        env: childEnv({ DATABASE_URL: server.dbUrl }),
      });
      return { stdout, stderr, code: 0 };
    } catch (err) {
      const e = err as { stdout: string; stderr: string; code: number };
      return { stdout: e.stdout, stderr: e.stderr, code: e.code };
    }
  }

  it('creates from YAML, lists, pauses, resumes and deletes an automation', async () => {
    const file = path.join(dir, 'weekly.yaml');
    await writeFile(
      file,
      [
        'name: Weekly review',
        'schedule: "0 9 * * 1"',
        'actions:',
        '  - type: createItems',
        '    items:',
        '      - title: "Weekly review {date}"',
        '        dueInDays: 0',
        '  - type: postDigest',
        '    daysAhead: 7',
        '',
      ].join('\n'),
    );
    const created = await cli('automation', 'create', '--email', ada.email, '--file', file);
    expect(created.stdout).toMatch(/^Created automation 'Weekly review' \([0-9a-f-]{36}\), active, next run \d{4}-/);
    const id = /\(([0-9a-f-]{36})\)/.exec(created.stdout)![1]!;
    expect((await list_automations(server.context(ada), {})).automations).toEqual([
      expect.objectContaining({
        id,
        status: 'active',
        schedule: '0 9 * * 1',
        actions: [
          { type: 'createItems', items: [{ title: 'Weekly review {date}', dueInDays: 0 }] },
          { type: 'postDigest', daysAhead: 7 },
        ],
      }),
    ]);
    expect((await cli('automation', 'list', '--email', ada.email)).stdout).toMatch(
      new RegExp(`^${id}  active  0 9 \\* \\* 1 +next .*Weekly review: Creates 'Weekly review \\{date\\}' on tasks`),
    );
    expect((await cli('automation', 'pause', '--email', ada.email, '--id', id)).stdout).toBe("'Weekly review' is paused.\n");
    expect((await list_automations(server.context(ada), {})).automations[0]).toMatchObject({ status: 'paused', nextRunAt: null });
    expect((await cli('automation', 'resume', '--email', ada.email, '--id', id)).stdout).toMatch(/^'Weekly review' is active; next run /);
    expect((await cli('automation', 'delete', '--email', ada.email, '--id', id)).stdout).toBe("Deleted automation 'Weekly review'.\n");
    expect((await list_automations(server.context(ada), {})).count).toBe(0);
  });

  it('creates from JSON and refuses a bad definition with one sentence naming the problem', async () => {
    const good = path.join(dir, 'tidy.json');
    await writeFile(good, JSON.stringify({ name: 'Tidy', status: 'draft', actions: [{ type: 'archiveCompleted', olderThanDays: 30 }] }));
    expect((await cli('automation', 'create', '--email', ada.email, '--file', good)).stdout).toMatch(/Created automation 'Tidy' .*, draft\.\n$/);
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ name: 'Bad', schedule: 'daily', actions: [{ type: 'postDigest' }] }));
    const refused = await cli('automation', 'create', '--email', ada.email, '--file', bad);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/listkeeper: schedule 'daily' must have five fields/);
  });

  it('adds, lists and removes memory, which get_context shows', async () => {
    const added = await cli('memory', 'add', '--email', ada.email, 'Prefers tasks due before noon');
    const id = /\(([0-9a-f-]{36})\)/.exec(added.stdout)![1]!;
    await cli('memory', 'add', '--email', ada.email, 'Partner is called Sam');
    expect((await cli('memory', 'list', '--email', ada.email)).stdout).toBe(
      `${id}  Prefers tasks due before noon\n${(await server.db('memory').where({ text: 'Partner is called Sam' }).first()).id}  Partner is called Sam\n`,
    );
    expect((await get_context(server.context(ada), {})).memory).toEqual(['Prefers tasks due before noon', 'Partner is called Sam']);
    expect((await cli('memory', 'remove', '--email', ada.email, '--id', id)).stdout).toBe('Forgot: Prefers tasks due before noon\n');
    expect((await get_context(server.context(ada), {})).memory).toEqual(['Partner is called Sam']);
    expect((await cli('memory', 'remove', '--email', ada.email, '--id', id)).stderr).toMatch(/No memory/);
  });
});
