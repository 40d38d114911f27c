/**
 * The person's side: the item page at /artifacts/<id> and the main conversation. Over plain
 * HTTP for the behaviour and the safety of rendered Markdown; in headless Chromium for the
 * person replying, which reaches a webhook receiver as task.awaitingAgent (reason reply).
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestServer, type TestAccount } from '../support/server.js';
import { HttpBrowser, formValue, signInOverHttp } from '../support/oauth.js';
import { launchBrowser, type TestBrowser } from '../support/browser.js';
import { startReceiver, subscribeWebhook, useDeliveryServer, type Receiver } from '../support/events.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { post_chat_message } from '../../src/operations/post_chat_message.js';
import { read_chat_messages } from '../../src/operations/read_chat_messages.js';

const PASSWORD = 'correct horse battery staple';

function signedIn(server: TestServer, account: TestAccount): Promise<HttpBrowser> {
  return signInOverHttp(server.baseUrl, account.email, PASSWORD, '/conversation');
}

describe('item page and main conversation', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  let web: HttpBrowser;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
    web = await signedIn(server, ada);
  });
  const ctx = () => server.context(ada);

  it('sends a person who is not signed in to sign-in, and back to the item after', async () => {
    const id = (await create_items(ctx(), { items: [{ title: 'Private' }] })).items[0]!.id;
    const res = await new HttpBrowser(server.baseUrl).request(`/artifacts/${id}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/signin?next=${encodeURIComponent(`/artifacts/${id}`)}`);
    expect((await new HttpBrowser(server.baseUrl).request('/conversation')).status).toBe(303);
  });

  it("shows title, rendered body, status and due date, and an agent's post as unread once", async () => {
    const id = (
      await create_items(ctx(), {
        items: [
          {
            title: 'Renew passport',
            body: 'Bring **two** photos.\n\n- [ ] form',
            taskStatus: 'inProgress',
            dueAt: '2026-12-24',
            recurrence: 'every year',
            labels: ['admin', 'travel'],
            reminderAt: '2026-12-23T18:00:00Z',
          },
        ],
      })
    ).items[0]!.id;
    await post_chat_message(ctx(), { id, message: 'Shall I book the *appointment*?', agentName: 'Errand bot', needsInput: true });
    const res = await web.request(`/artifacts/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain('<h1>Renew passport</h1>');
    expect(page).toContain('Bring <strong>two</strong> photos.');
    expect(page).toContain('<input type="checkbox" disabled="" />');
    expect(page).toMatch(/Status: <strong>In progress<\/strong>/);
    expect(page).toContain('Due: 24 Dec 2026');
    expect(page).toContain('<span>Repeats every year</span>');
    expect(page).toContain('<span>Labels: admin, travel</span>');
    expect(page).toMatch(/<span>Reminder: [^<]*23 Dec 2026[^<]*18:00<\/span>/);
    expect(page).toContain('Shall I book the <em>appointment</em>?');
    expect(page).toMatch(/class="agent unread"[\s\S]*Errand bot[\s\S]*Unread[\s\S]*Waiting for your answer/);
    const again = await (await web.request(`/artifacts/${id}`)).text();
    expect(again).not.toContain('class="agent unread"');
    expect(again).not.toContain('badge unread');
  });

  it("renders agents' Markdown without raw HTML, scripts or dangerous links", async () => {
    const id = (await create_items(ctx(), { items: [{ title: '<b>Title</b>', body: '<script>alert(1)</script>\n\n[click](javascript:alert(2))' }] })).items[0]!
      .id;
    await post_chat_message(ctx(), { id, message: '<img src=x onerror="alert(3)"> ![x](javascript:alert(4)) <iframe src="https://evil.example"></iframe>' });
    const page = await (await web.request(`/artifacts/${id}`)).text();
    expect(page).not.toMatch(/<script>alert/);
    expect(page).not.toMatch(/<img src=x/);
    expect(page).not.toMatch(/<iframe/);
    // The edit form shows the Markdown as written; no rendered link or image points at it.
    expect(page).not.toMatch(/(href|src)="javascript:/);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('<h1>&lt;b&gt;Title&lt;/b&gt;</h1>');
  });

  it("takes the person's reply from the form, and refuses one without the CSRF token or from another site", async () => {
    const id = (await create_items(ctx(), { items: [{ title: 'Trip' }] })).items[0]!.id;
    const page = await (await web.request(`/artifacts/${id}`)).text();
    const csrf = formValue(page, 'csrf');
    expect((await web.request(`/artifacts/${id}/messages`, { form: { message: 'no token' } })).status).toBe(403);
    expect(
      (await web.request(`/artifacts/${id}/messages`, { form: { csrf, message: 'cross-site' }, headers: { origin: 'https://evil.example' } })).status,
    ).toBe(403);
    expect((await web.request(`/artifacts/${id}/messages`, { form: { csrf, message: '   ' } })).status).toBe(400);
    const sent = await web.request(`/artifacts/${id}/messages`, { form: { csrf, message: 'Rome, **please**' } });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')).toBe(`/artifacts/${id}#chat`);
    const { messages } = await read_chat_messages(ctx(), { id });
    expect(messages.map((m) => [m.authorKind, m.authorName, m.text])).toEqual([['person', 'Ada', 'Rome, **please**']]);
    expect(await (await web.request(`/artifacts/${id}`)).text()).toContain('Rome, <strong>please</strong>');
  });

  it("answers 404 for another person's item, for a trashed one and for a malformed id", async () => {
    const bea = await server.account('Bea');
    const theirs = (await create_items(server.context(bea), { items: [{ title: 'Bea only' }] })).items[0]!.id;
    const res = await web.request(`/artifacts/${theirs}`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('Bea only');
    expect((await web.request('/artifacts/not-a-uuid')).status).toBe(404);
    const trashed = (await create_items(ctx(), { items: [{ title: 'Thrown away' }] })).items[0]!.id;
    await ada.sdk.DELETE('/items', { body: { itemIds: [trashed] } });
    expect((await web.request(`/artifacts/${trashed}`)).status).toBe(404);
    const page = await (await web.request('/conversation')).text();
    expect((await web.request(`/artifacts/${theirs}/messages`, { form: { csrf: formValue(page, 'csrf'), message: 'hi' } })).status).toBe(404);
  });

  it('lists one line per agent post across items in the main conversation, unread first seen', async () => {
    const notes = await create_list(ctx(), { name: 'Notes 2' });
    const a = (await create_items(ctx(), { items: [{ title: 'Alpha task' }] })).items[0]!.id;
    const b = (await create_items(ctx(), { listId: notes.id, items: [{ title: 'Beta note' }] })).items[0]!.id;
    await post_chat_message(ctx(), { id: a, message: 'First line of A\nsecond line', agentName: 'Bot A' });
    await post_chat_message(ctx(), { id: b, message: 'About B', agentName: 'Bot B', needsInput: true });
    await post_chat_message(ctx(), { id: a, message: 'Another on A', agentName: 'Bot A' });
    const page = await (await web.request('/conversation')).text();
    const lines = [...page.matchAll(/<li[^>]*>([\s\S]*?)<\/li>/g)].map((m) => m[1]!);
    const ours = lines.filter((l) => /Alpha task|Beta note/.test(l));
    expect(ours).toHaveLength(3);
    expect(ours[0]).toMatch(/Unread[\s\S]*Bot A[\s\S]*Alpha task[\s\S]*Another on A/);
    expect(ours[1]).toMatch(/Waiting for you[\s\S]*Bot B[\s\S]*Beta note[\s\S]*About B/);
    expect(ours[2]).toMatch(/Bot A[\s\S]*First line of A/);
    expect(ours[2]).not.toContain('second line');
    expect(page).toContain(`href="/artifacts/${a}#chat"`);
  });

  it("shows an agent's Markdown in the conversation's one-line excerpt as text, without its syntax or any markup", async () => {
    const id = (await create_items(ctx(), { items: [{ title: 'Shopping run' }] })).items[0]!.id;
    await post_chat_message(ctx(), {
      id,
      message: 'Booked **Tesco** for _Saturday_, see [the slot](https://example.com/slot) & <b>bring</b> `bags`',
      agentName: 'Shop bot',
    });
    const page = await (await web.request('/conversation')).text();
    const line = [...page.matchAll(/<li[^>]*>([\s\S]*?)<\/li>/g)].map((m) => m[1]!).find((l) => l.includes('Shopping run'))!;
    const text = line.slice(line.indexOf('Shopping run</a>: '));
    expect(text).toContain('Booked Tesco for Saturday, see the slot &amp; &lt;b&gt;bring&lt;/b&gt; bags');
    expect(text).not.toMatch(/\*\*|<strong>|<b>|href="https:\/\/example/);
  });
});

describe('the person replies in the browser', () => {
  const { server } = useDeliveryServer({
    accounts: [],
    beforeClose: async () => {
      await browser?.close();
      await receiver?.close();
    },
  });
  let receiver: Receiver;
  let browser: TestBrowser;
  beforeAll(async () => {
    [receiver, browser] = await Promise.all([startReceiver(), launchBrowser({ viewport: { width: 390, height: 844 } })]);
  });

  it("signs in, sees the agent's question unread, answers it, and task.awaitingAgent (reply) reaches the receiver", async () => {
    const ada = await server.account('Ada', PASSWORD);
    await subscribeWebhook(ada, receiver);
    const id = (await create_items(server.context(ada), { items: [{ title: 'Choose a hotel', body: 'Budget **120** a night' }] })).items[0]!.id;
    await post_chat_message(server.context(ada), { id, message: 'Near the station or the old town?', agentName: 'Travel agent', needsInput: true });

    const tab = await browser.context.newPage();
    await tab.goto(`${server.baseUrl}/artifacts/${id}`);
    expect(new URL(tab.url()).pathname).toBe('/signin');
    await tab.fill('#email', ada.email);
    await tab.fill('#password', PASSWORD);
    await Promise.all([tab.waitForURL(`**/artifacts/${id}`), tab.click('button[type=submit]')]);
    expect(await tab.textContent('h1')).toBe('Choose a hotel');
    expect(await tab.locator('ol.chat li.agent.unread').count()).toBe(1);
    expect(await tab.locator('.badge.unread').first().textContent()).toBe('Unread');
    await tab.screenshot({ path: '.tmp/item-page.png', fullPage: true });

    await tab.fill('#message', 'The old town, please.');
    await Promise.all([tab.waitForURL(`**/artifacts/${id}#chat`), tab.click('#chat button[type=submit]')]);
    expect(await tab.locator('ol.chat li.person').last().textContent()).toContain('The old town, please.');
    expect(await tab.locator('ol.chat li.agent.unread').count()).toBe(0);

    await receiver.waitFor(() => receiver.events().length === 1);
    expect(receiver.events()[0]!.payload).toMatchObject({
      name: 'task.awaitingAgent',
      cursor: null,
      data: { taskId: id, title: 'Choose a hotel', reason: 'reply', agentName: 'Travel agent' },
    });
    await tab.close();
  });
});
