/**
 * The tasks extension on 2026-07-28 (src/mcp/tasks.ts): create_import and run_automation
 * answer a client that declares io.modelcontextprotocol/tasks with a task handle; tasks/get
 * follows the import or the run to its result, from any process, for its owner only.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { createAutomation } from '../../src/domain/automations/automations.js';
import type { Jobs } from '../../src/jobs/queue.js';
import { startTestJobs, waitFor } from '../support/jobs.js';
import { modernMessage, modernPost, type RawResponse } from '../support/http.js';
import { useTestServer, type TestAccount } from '../support/server.js';

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const CSV = 'Name,Qty\nMilk,2\nBread,1\n';

interface Task {
  resultType: string;
  taskId: string;
  status: string;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number;
  result?: { resultType: string; isError?: boolean; structuredContent: Record<string, unknown>; content: { text: string }[] };
}

describe('MCP tasks', () => {
  const { server, ada, account } = useTestServer({ accounts: ['Ada', 'Bea'], beforeClose: async () => jobs?.stop() });
  let jobs: Jobs;
  let bea: TestAccount;
  beforeAll(async () => {
    jobs = await startTestJobs(server);
    bea = account('Bea');
  });

  const rpc = (
    who: TestAccount,
    method: string,
    params: Record<string, unknown>,
    capabilities: object = TASKS,
    baseUrl = server.baseUrl,
  ): Promise<RawResponse> =>
    modernPost(baseUrl, modernMessage(1, method, params, capabilities as Record<string, unknown>), { Authorization: `Bearer ${who.key}` });
  const result = <T>(res: RawResponse) => res.json<{ result: T }>().result;
  const errorOf = (res: RawResponse) => res.json<{ error: { code: number; message: string; data?: unknown } }>().error;
  const startImport = async (listName: string) =>
    result<Task>(await rpc(ada, 'tools/call', { name: 'create_import', arguments: { format: 'csv', csv: CSV, listName } }));
  const finished = (taskId: string, baseUrl = server.baseUrl) =>
    waitFor(async () => {
      const task = result<Task>(await rpc(ada, 'tasks/get', { taskId }, TASKS, baseUrl));
      return task.status === 'completed' ? task : undefined;
    });

  it('follows an import as a task to its result', async () => {
    const created = await startImport('Groceries');
    expect(created).toEqual({
      resultType: 'task',
      taskId: expect.stringMatching(/^import\.[0-9a-f-]{36}$/),
      status: 'working',
      statusMessage: expect.stringMatching(/^(Queued|Importing): \d of 2 items written\.$/),
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttlMs: null,
      pollIntervalMs: 1000,
      _meta: { 'io.modelcontextprotocol/serverInfo': expect.anything() },
    });
    const done = await finished(created.taskId);
    expect(done).toMatchObject({ resultType: 'complete', status: 'completed', statusMessage: 'The import succeeded.', taskId: created.taskId });
    expect(done.result).toMatchObject({
      resultType: 'complete',
      structuredContent: { status: 'succeeded', progress: { done: 2, total: 2 }, lists: [{ name: 'Groceries', status: 'imported', created: 2 }] },
    });
    expect(done.result!.isError).toBeUndefined();
    expect(JSON.parse(done.result!.content[0]!.text)).toEqual(done.result!.structuredContent);
    const lists = (await ada.sdk.GET('/lists', {})).data!.lists;
    expect(lists.find((l) => l.name === 'Groceries')).toMatchObject({ itemCount: 2 });
  });

  it('answers tasks/get from another process, since the task is the import in Postgres', async () => {
    const created = await startImport('Hardware');
    const second = createApp({ db: server.db, config: server.config, services: server.services, log: pino({ level: 'silent' }), validateResponses: true });
    const other: Server = second.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => other.once('listening', resolve));
    try {
      const done = await finished(created.taskId, `http://127.0.0.1:${(other.address() as AddressInfo).port}`);
      expect(done.result!.structuredContent).toMatchObject({ status: 'succeeded' });
    } finally {
      other.closeAllConnections();
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('follows an automation run as a task to its outcome', async () => {
    const automation = await createAutomation(
      server.db,
      ada.userId,
      { name: 'Digest now', schedule: '0 9 * * 1', actions: [{ type: 'postDigest' }] },
      new Date(),
    );
    const created = result<Task>(await rpc(ada, 'tools/call', { name: 'run_automation', arguments: { id: automation.id } }));
    expect(created).toMatchObject({ resultType: 'task', taskId: expect.stringMatching(new RegExp(`^run\\.${automation.id}\\.`)), status: 'working' });
    const done = await finished(created.taskId);
    expect(done.result).toMatchObject({ resultType: 'complete', structuredContent: { id: automation.id, name: 'Digest now', status: 'active' } });
    expect(done.result!.content[0]!.text).toMatch(/^The run succeeded: \{.*"outcome":"succeeded"/);
  });

  it('answers a client without the extension as before: the queued import, no task', async () => {
    const plain = result<Task & { structuredContent: { status: string } }>(
      await rpc(ada, 'tools/call', { name: 'create_import', arguments: { format: 'csv', csv: CSV, listName: 'Plain' } }, {}),
    );
    expect(plain.resultType).toBe('complete');
    expect(plain.taskId).toBeUndefined();
    expect(plain.structuredContent.status).toBe('queued');
  });

  it('keeps a refused call a refusal, not a task', async () => {
    const refused = result<Task & { isError: boolean }>(
      await rpc(ada, 'tools/call', { name: 'create_import', arguments: { format: 'csv', csv: CSV, listName: 'Groceries' } }),
    );
    expect(refused).toMatchObject({ resultType: 'complete', isError: true });
  });

  it('acknowledges tasks/update and tasks/cancel with an empty result', async () => {
    const created = await startImport('Garden');
    for (const method of ['tasks/update', 'tasks/cancel']) {
      const res = await rpc(ada, method, { taskId: created.taskId, inputResponses: {} });
      expect(res.status).toBe(200);
      expect(result(res)).toEqual({ resultType: 'complete', _meta: expect.anything() });
    }
  });

  it("refuses another person's task, an unknown one and a malformed one as not found (-32602)", async () => {
    const created = await startImport('Private');
    for (const [who, taskId] of [
      [bea, created.taskId],
      [ada, 'import.00000000-0000-4000-8000-000000000000'],
      [ada, 'import.nope'],
      [ada, 'something-else'],
    ] as const) {
      const res = await rpc(who, 'tasks/get', { taskId });
      expect({ taskId, status: res.status, code: errorOf(res).code }).toEqual({ taskId, status: 200, code: -32602 });
    }
  });

  it('refuses the tasks methods to a client that does not declare the extension (-32021, 400)', async () => {
    const created = await startImport('Undeclared');
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const res = await rpc(ada, method, { taskId: created.taskId }, {});
      expect(res.status).toBe(400);
      expect(errorOf(res)).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
    }
  });

  it('routes tasks/get by Mcp-Name: a header naming another task is a header mismatch (-32020, 400)', async () => {
    const created = await startImport('Routed');
    const res = await modernPost(server.baseUrl, modernMessage(1, 'tasks/get', { taskId: created.taskId }, TASKS), {
      Authorization: `Bearer ${ada.key}`,
      'Mcp-Name': 'import.00000000-0000-4000-8000-000000000000',
    });
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe(-32020);
  });

  it('names the extension in server/discover', async () => {
    const discovered = result<{ capabilities: { extensions: Record<string, unknown> } }>(await rpc(ada, 'server/discover', {}));
    expect(discovered.capabilities.extensions['io.modelcontextprotocol/tasks']).toEqual({});
  });
});
