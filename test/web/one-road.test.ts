/**
 * A write on the person's pages is the write of its operation (ARCHITECTURE.md, "One road for
 * every write"): the same checks and refusal sentences, the same activity line, the same change
 * event. Each case makes the write once on a page and once through dispatch as the person, and
 * compares what both left.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { formValue, signInOverHttp, type HttpBrowser } from '../support/oauth.js';
import { call } from '../../src/operations/dispatch.js';
import { create_items } from '../../src/operations/create_items.js';
import { post_chat_message } from '../../src/operations/post_chat_message.js';
import { mintSecret } from '../../src/domain/changes/subscriptions.js';
import { escapeHtml } from '../../src/web/html.js';

const PASSWORD = 'correct horse battery staple';

describe('a write on the pages goes through its operation', () => {
  const { server } = useTestServer({ accounts: [], env: { OUTBOUND_ALLOW_PRIVATE: 'true' } });
  let ada: TestAccount;
  let browser: HttpBrowser;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
    browser = await signInOverHttp(server.baseUrl, ada.email, PASSWORD);
  });

  /** Posts `fields` to `action` with the CSRF token of the page at `from`. */
  async function submit(from: string, action: string, fields: Record<string, string>): Promise<Response> {
    const page = await (await browser.request(from)).text();
    return browser.request(action, { form: { csrf: formValue(page, 'csrf'), ...fields } });
  }

  /** The sentence an operation refuses `input` with, as the person. */
  async function refusalOf(operationId: 'post_person_message' | 'add_memory', input: Record<string, string>): Promise<string> {
    const err = await call(server.personContext(ada), operationId, input as never).then(
      () => null,
      (e: Error) => e,
    );
    if (!err) throw new Error(`${operationId} took ${JSON.stringify(input)}`);
    return err.message;
  }

  it('a chat reply on the item page: the refusal, the activity line and the chat.replied event of post_person_message', async () => {
    // A subscription to chat.replied (pending is enough): the trigger writes the event to the outbox.
    await ada.sdk.POST('/event-subscriptions', { body: { url: 'http://127.0.0.1:9/hook', secret: mintSecret(), events: ['chat.replied'] } });
    const [onPage, byOperation] = (await create_items(server.context(ada), { items: [{ title: 'Book flights' }, { title: 'Book flights' }] })).items.map(
      (i) => i.id,
    );
    for (const id of [onPage!, byOperation!]) await post_chat_message(server.context(ada), { id, message: 'Which dates?', needsInput: true });

    const blank = await submit(`/artifacts/${onPage}`, `/artifacts/${onPage}/messages`, { message: ' \r\n ' });
    expect(blank.status).toBe(400);
    expect(await blank.text()).toContain(escapeHtml(await refusalOf('post_person_message', { id: byOperation!, message: ' \n ' })));

    expect((await submit(`/artifacts/${onPage}`, `/artifacts/${onPage}/messages`, { message: 'The 3rd to the 9th' })).status).toBe(303);
    await call(server.personContext(ada), 'post_person_message', { id: byOperation!, message: 'The 3rd to the 9th' });

    const activity = async (itemId: string) =>
      server.db('activity').where({ user_id: ada.userId, item_id: itemId, action: 'chat.replied' }).select('summary', 'via_connection', 'client_name');
    expect(await activity(onPage!)).toEqual([{ summary: "Wrote in the chat of 'Book flights'", via_connection: false, client_name: null }]);
    expect(await activity(byOperation!)).toEqual(await activity(onPage!));

    /** The events written for an item, with what differs between two items (ids, times) named instead. */
    const event = async (itemId: string) => {
      const rows = (await server.db('outbox').where({ topic: 'event', subject_id: itemId }).orderBy('id').pluck('payload')) as {
        type: string;
        data: Record<string, unknown>;
      }[];
      const named: Record<string, string> = { itemId: 'the item', taskId: 'the task', messageId: 'its message', occurredAt: 'when' };
      return rows.map(({ type, data }) => ({ type, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, named[k] ?? v])) }));
    };
    // The reply answers the agent's question, so the task goes back to it too.
    expect(await event(onPage!)).toEqual([
      { type: 'chat.replied', data: expect.objectContaining({ itemId: 'the item', authorName: 'Ada', text: 'The 3rd to the 9th', title: 'Book flights' }) },
      { type: 'task.awaitingAgent', data: expect.objectContaining({ taskId: 'the task', reason: 'reply', agentName: 'Your agent' }) },
    ]);
    expect(await event(byOperation!)).toEqual(await event(onPage!));
  });

  it('a memory line on Settings → Memory: refused with add_memory’s sentence, logged as add_memory logs it', async () => {
    const tooLong = 'x'.repeat(501);
    const refused = await submit('/settings/memory', '/settings/memory', { text: tooLong });
    expect(refused.status).toBe(400);
    const sentence = await refusalOf('add_memory', { text: tooLong });
    expect(sentence).toMatch(/^'text' must NOT have more than 500 characters/);
    expect(await refused.text()).toContain(escapeHtml(sentence));

    expect((await submit('/settings/memory', '/settings/memory', { text: 'Works from home on Fridays' })).status).toBe(303);
    await call(server.personContext(ada), 'add_memory', { text: 'Prefers mornings' });
    expect(await server.db('activity').where({ user_id: ada.userId, action: 'memory.added' }).orderBy('id').select('summary', 'via_connection')).toEqual([
      { summary: "Remembered 'Works from home on Fridays'", via_connection: false },
      { summary: "Remembered 'Prefers mornings'", via_connection: false },
    ]);
  });

  it('an automation made on Settings → Automations is logged as create_automation logs it', async () => {
    const made = await submit('/settings/automations', '/settings/automations', { definition: 'name: Web digest\nactions: [{type: postDigest}]\n' });
    expect(made.status).toBe(303);
    await call(server.personContext(ada), 'create_automation', { definition: { name: 'Digest by call', actions: [{ type: 'postDigest' }] } });
    expect(await server.db('activity').where({ user_id: ada.userId, action: 'automation.created' }).orderBy('id').pluck('summary')).toEqual([
      "Created the automation 'Web digest' (active)",
      "Created the automation 'Digest by call' (active)",
    ]);
  });
});
