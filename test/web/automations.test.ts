/** Settings → Automations and Settings → Memory: the person's pages, over plain HTTP with the session cookie. */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { startTestJobs, waitFor } from '../support/jobs.js';
import { HttpBrowser, formValue } from '../support/oauth.js';
import type { Jobs } from '../../src/jobs/queue.js';
import { list_automations } from '../../src/operations/list_automations.js';
import { get_context } from '../../src/operations/get_context.js';
import type { RunRow } from '../../src/domain/automations/automations.js';

const PASSWORD = 'correct horse battery staple';

describe('the Automations and Memory pages', () => {
  const { server } = useTestServer({
    accounts: [],
    beforeClose: async () => {
      await jobs.stop();
    },
  });
  let jobs: Jobs;
  let ada: TestAccount;
  let browser: HttpBrowser;
  beforeAll(async () => {
    jobs = await startTestJobs(server);
    ada = await server.account('Ada', PASSWORD);
    browser = new HttpBrowser(server.baseUrl);
    const signin = await (await browser.request('/signin')).text();
    expect(
      (await browser.request('/signin', { form: { csrf: formValue(signin, 'csrf'), next: '/settings/automations', email: ada.email, password: PASSWORD } }))
        .status,
    ).toBe(303);
  });

  /** Posts to `action` with the CSRF token of `from`. */
  async function submit(from: string, action: string, fields: Record<string, string> = {}): Promise<Response> {
    const page = await (await browser.request(from)).text();
    return browser.request(action, { form: { csrf: formValue(page, 'csrf'), ...fields } });
  }

  it('sends a signed-out visitor to sign-in and back', async () => {
    const res = await new HttpBrowser(server.baseUrl).request('/settings/automations');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/signin?next=%2Fsettings%2Fautomations');
  });

  it('creates an automation from YAML, runs it now, pauses, resumes and deletes it', async () => {
    const created = await submit('/settings/automations', '/settings/automations', {
      definition: 'name: Web digest\nschedule: "30 7 * * *"\nactions:\n  - type: postDigest\n',
    });
    expect(created.status).toBe(303);
    const [automation] = (await list_automations(server.context(ada), {})).automations;
    expect(automation).toMatchObject({ name: 'Web digest', status: 'active', schedule: '30 7 * * *' });
    const listed = await (await browser.request('/settings/automations')).text();
    expect(listed).toContain('Web digest');
    expect(listed).toMatch(/Runs at &quot;30 7 \* \* \*&quot; \(Europe\/London\); next \d{4}-\d{2}-\d{2} 07:30/);

    const ran = await submit('/settings/automations', `/settings/automations/${automation!.id}/run`);
    expect(ran.status).toBe(303);
    expect(ran.headers.get('location')).toBe(`/settings/automations?notice=running&id=${automation!.id}`);
    expect(await (await browser.request(ran.headers.get('location')!)).text()).toContain('&#39;Web digest&#39; is running; its result lands in its chat.');
    const run = await waitFor(
      async () => (await server.db('automation_runs').where({ automation_id: automation!.id, outcome: 'succeeded' }).first()) as RunRow | undefined,
    );
    const detail = await (await browser.request(`/settings/automations/${automation!.id}`)).text();
    expect(detail).toContain('succeeded');
    expect(detail).toContain(run.wrote[0]!.replace(/'/g, '&#39;'));

    expect((await submit('/settings/automations', `/settings/automations/${automation!.id}/pause`)).status).toBe(303);
    expect((await list_automations(server.context(ada), {})).automations[0]).toMatchObject({ status: 'paused', nextRunAt: null });
    expect((await submit('/settings/automations', `/settings/automations/${automation!.id}/resume`)).status).toBe(303);
    expect((await list_automations(server.context(ada), {})).automations[0]!.status).toBe('active');
    expect((await submit('/settings/automations', `/settings/automations/${automation!.id}/delete`)).status).toBe(303);
    expect((await list_automations(server.context(ada), {})).count).toBe(0);
  });

  it('shows a refused definition or run with its reason and keeps what was typed', async () => {
    const bad = await submit('/settings/automations', '/settings/automations', { definition: '{"name": "Bad", "actions": [{"type": "sendEmail"}]}' });
    expect(bad.status).toBe(400);
    const text = await bad.text();
    expect(text).toMatch(/actions\[0\]\.type must be one of createItems/);
    expect(text).toContain('sendEmail');
    await submit('/settings/automations', '/settings/automations', { definition: 'name: Drafty\nstatus: draft\nactions: [{type: postDigest}]' });
    const draft = (await list_automations(server.context(ada), {})).automations.find((a) => a.name === 'Drafty')!;
    const refused = await submit('/settings/automations', `/settings/automations/${draft.id}/run`);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toMatch(/is a draft/);
  });

  it("refuses a form without the CSRF token, and another person's automation", async () => {
    const res = await browser.request('/settings/automations', { form: { definition: 'name: x\nactions: [{type: postDigest}]' } });
    expect(res.status).toBe(403);
    const bob = await server.account('Bob');
    const theirs = await server
      .db('automations')
      .insert({ owner_id: bob.userId, name: 'Bob only', actions: JSON.stringify([{ type: 'postDigest' }]), status: 'active' })
      .returning('id');
    expect((await browser.request(`/settings/automations/${theirs[0].id}`)).status).toBe(404);
    expect((await submit('/settings/automations', `/settings/automations/${theirs[0].id}/delete`)).status).toBe(404);
    expect(await server.db('automations').where({ id: theirs[0].id }).first()).toBeDefined();
  });

  it('keeps the memory agents read: add and forget', async () => {
    expect((await submit('/settings/memory', '/settings/memory', { text: 'Works from home on Fridays' })).status).toBe(303);
    expect((await get_context(server.context(ada), {})).memory).toEqual(['Works from home on Fridays']);
    const page = await (await browser.request('/settings/memory')).text();
    const id = /action="\/settings\/memory\/([0-9a-f-]{36})\/remove"/.exec(page)![1]!;
    expect((await submit('/settings/memory', `/settings/memory/${id}/remove`)).status).toBe(303);
    expect((await get_context(server.context(ada), {})).memory).toEqual([]);
    const tooLong = await submit('/settings/memory', '/settings/memory', { text: 'x'.repeat(501) });
    expect(tooLong.status).toBe(400);
  });
});
