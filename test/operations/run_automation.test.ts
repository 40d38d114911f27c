import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { startTestJobs, waitFor } from '../support/jobs.js';
import type { Jobs } from '../../src/jobs/queue.js';
import { run_automation } from '../../src/operations/run_automation.js';
import { createAutomation, type RunRow } from '../../src/domain/automations/automations.js';
import { ApiError } from '../../src/core/errors.js';
import { mainConversation } from '../../src/domain/chat/chat.js';
import { REACH_LOCAL_SERVERS, startLocalServer } from '../support/net.js';

describe('run_automation', () => {
  const { server, ada } = useTestServer({
    env: REACH_LOCAL_SERVERS,
    beforeClose: async () => {
      await jobs.stop();
    },
  });
  let jobs: Jobs;
  beforeAll(async () => {
    jobs = await startTestJobs(server);
  });
  const ctx = () => server.context(ada);
  const make = (def: object) => createAutomation(server.db, ada.userId, def, new Date());
  const ended = (runId: string) =>
    waitFor(async () => (await server.db('automation_runs').where({ id: runId }).whereIn('outcome', ['succeeded', 'failed']).first()) as RunRow | undefined);

  it("queues the run on the job queue, answers at once, and the result lands in the automation's chat", async () => {
    const automation = await make({
      name: 'Weekly review',
      schedule: '0 9 * * 1',
      actions: [{ type: 'createItems', items: [{ title: 'Weekly review {date}' }] }, { type: 'postDigest' }],
    });
    const started = await run_automation(ctx(), { id: automation.id });
    expect(started).toEqual({ id: automation.id, name: 'Weekly review', runId: expect.any(String), status: 'active' });
    const run = await ended(started.runId);
    expect(run.outcome).toBe('succeeded');
    expect(run.trigger).toBe('manual');
    expect(run.wrote).toEqual([
      expect.stringMatching(/^Created 1 item on 'Tasks': 'Weekly review \d{4}-\d{2}-\d{2}'\.$/),
      expect.stringMatching(/^Posted a digest/),
    ]);
    const chatItemId = ((await server.db('automations').where({ id: automation.id }).first()) as { chat_item_id: string }).chat_item_id;
    const messages = await server.db('chat_messages').where({ item_id: chatItemId });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ author_kind: 'service', author_name: 'Weekly review', message_key: `automation-run:${started.runId}` });
    expect(messages[0].text).toBe(run.message);
    expect(run.message).toMatch(/\*\*Weekly review\*\* ran on request\.[\s\S]*Digest for/);
    const chatItem = await server.db('items').where({ id: chatItemId }).first();
    expect(chatItem.title).toBe('Automation: Weekly review');
    // The person reads it in the automation's chat and in their main conversation; agents with read_chat_messages.
    expect((await mainConversation(server.db, ada.userId)).find((l) => l.itemId === chatItemId)).toMatchObject({
      agentName: 'Weekly review',
      text: run.message,
      unread: true,
    });
    const read = await ada.sdk.GET('/items/{id}/messages', { params: { path: { id: chatItemId } } });
    expect(read.data!.messages).toEqual([expect.objectContaining({ authorKind: 'service', authorName: 'Weekly review', text: run.message })]);
  });

  it('is refused for a draft (409 toolError), over REST and MCP alike', async () => {
    const draft = await make({ name: 'Draft one', status: 'draft', actions: [{ type: 'postDigest' }] });
    await expect(run_automation(ctx(), { id: draft.id })).rejects.toMatchObject({
      status: 409,
      code: 'toolError',
      message: expect.stringMatching(/is a draft/),
    });
    const rest = await ada.sdk.POST('/automations/{id}/run', { params: { path: { id: draft.id } } });
    expect(rest.response.status).toBe(409);
    expect(rest.error).toMatchObject({ code: 'toolError' });
    const mcp = await (await server.mcp(ada)).callTool({ name: 'run_automation', arguments: { id: draft.id } });
    expect(mcp.isError).toBe(true);
    expect(JSON.stringify(mcp.content)).toMatch(/is a draft/);
    expect(await server.db('automation_runs').where({ automation_id: draft.id })).toHaveLength(0);
  });

  it('is refused while the same automation is running, and runs again once it ended', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hook = await startLocalServer((req, res) => {
      req.resume();
      void held.then(() => res.writeHead(204).end());
    });
    try {
      const url = `${hook.url}/hook`;
      const automation = await make({ name: 'Slow hook', actions: [{ type: 'webhook', url }] });
      const first = await run_automation(ctx(), { id: automation.id });
      await waitFor(async () => (await server.db('automation_runs').where({ id: first.runId, outcome: 'running' }).first()) as RunRow | undefined);
      const refused = await run_automation(ctx(), { id: automation.id }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ status: 409, message: expect.stringMatching(/already running \(run [0-9a-f-]{36}, running since/) });
      release();
      expect((await ended(first.runId)).outcome).toBe('succeeded');
      const again = await run_automation(ctx(), { id: automation.id });
      expect((await ended(again.runId)).outcome).toBe('succeeded');
    } finally {
      release();
      await hook.close();
    }
  });

  it("is refused past the daily run limit, counted over the person's local day", async () => {
    const limited = { ...ctx(), config: { ...server.config, automationDailyRunLimit: 2 } };
    const automation = await make({ name: 'Twice a day at most', status: 'paused', actions: [{ type: 'postDigest' }] });
    for (let i = 0; i < 2; i++) {
      const run = await run_automation(limited, { id: automation.id });
      expect(run.status).toBe('paused');
      await ended(run.runId);
    }
    await expect(run_automation(limited, { id: automation.id })).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/ran 2 times today, its daily limit \(2\); it can run again after midnight Europe\/London time/),
    });
    // Runs from before the local midnight do not count.
    await server
      .db('automation_runs')
      .where({ automation_id: automation.id })
      .update({ created_at: new Date(Date.now() - 2 * 86400000) });
    expect((await run_automation(limited, { id: automation.id })).runId).toEqual(expect.any(String));
  });

  it("answers 404 for another person's automation", async () => {
    const bob = await server.account('Bob');
    const theirs = await createAutomation(server.db, bob.userId, { name: "Bob's", actions: [{ type: 'postDigest' }] }, new Date());
    const res = await ada.sdk.POST('/automations/{id}/run', { params: { path: { id: theirs.id } } });
    expect(res.response.status).toBe(404);
  });

  it('returns the same fields over REST and MCP', async () => {
    const automation = await make({ name: 'Twin', actions: [{ type: 'postDigest' }] });
    const rest = await ada.sdk.POST('/automations/{id}/run', { params: { path: { id: automation.id } } });
    expect(rest.response.status).toBe(200);
    expect(rest.data).toEqual({ id: automation.id, name: 'Twin', runId: expect.any(String), status: 'active' });
    await ended(rest.data!.runId);
    const mcp = await (await server.mcp(ada)).callTool({ name: 'run_automation', arguments: { id: automation.id } });
    expect(mcp.isError).toBeFalsy();
    expect(mcp.structuredContent).toEqual({ id: automation.id, name: 'Twin', runId: expect.any(String), status: 'active' });
    await ended((mcp.structuredContent as { runId: string }).runId);
  });
});
