/**
 * The Activity page over plain HTTP: changes made through an OAuth app, the API key, an
 * automation and the person's own pages, each with the right "who"; links to the item or list
 * while it exists; the "only agents and apps" filter; paging back with "Older"; and never
 * another person's activity.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestServer, type TestAccount } from '../support/server.js';
import { HttpBrowser, signInOverHttp, connectApp } from '../support/oauth.js';
import type { OperationContext } from '../../src/core/context.js';
import { create_items } from '../../src/operations/create_items.js';
import { post_chat_message } from '../../src/operations/post_chat_message.js';
import { recordActivity, recordServiceActivity } from '../../src/domain/changes/activity.js';

const PASSWORD = 'correct horse battery staple';

function signedIn(server: TestServer, account: TestAccount): Promise<HttpBrowser> {
  return signInOverHttp(server.baseUrl, account.email, PASSWORD, '/activity');
}

/** An OAuth access token of a connected app, by the real flow. */
async function appToken(server: TestServer, account: TestAccount, name: string): Promise<string> {
  const { token } = await connectApp(server.baseUrl, { email: account.email, password: PASSWORD }, name);
  return String(token.body.access_token);
}

/** The person's own write from the web pages: the principal the page kit's asPerson builds. */
const asPerson = (server: TestServer, account: TestAccount): OperationContext => ({
  ...server.context(account),
  principal: { userId: account.userId, via: 'web', clientName: null, tokenId: `web:${account.userId}` },
});

/** The entries of the activity list, in page order. */
const entries = (page: string) => [...page.matchAll(/<li class="(own|other)">([\s\S]*?)<\/li>/g)].map((m) => ({ kind: m[1]!, text: m[2]! }));

describe('Activity', () => {
  const { server } = useTestServer({ accounts: [] });
  let ada: TestAccount;
  let web: HttpBrowser;
  let itemId: string;
  beforeAll(async () => {
    ada = await server.account('Ada', PASSWORD);
    web = await signedIn(server, ada);
    const token = await appToken(server, ada, 'Claude Desktop');
    const res = await fetch(`${server.baseUrl}/api/v1/items`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ title: 'Buy stamps' }] }),
    });
    expect(res.status).toBeLessThan(300);
    itemId = (await create_items(server.context(ada), { items: [{ title: 'Call the bank' }] })).items[0]!.id;
    await post_chat_message(server.context(ada), { id: itemId, message: 'Rang them', agentName: 'Key bot' });
    await recordServiceActivity(server.db, ada.userId, { action: 'items.created', summary: "added 1 on 'Tasks'", by: "automation 'Weekly review'" });
    await create_items(asPerson(server, ada), { items: [{ title: 'Water the plants' }] });
  }, 60_000);

  it('shows every change newest first with who made it, what and when, in the time zone of the person', async () => {
    const res = await web.request('/activity');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toMatch(/<a href="\/activity" aria-current="page">Activity<\/a>/);
    const lines = entries(page);
    expect(lines.map((l) => l.kind)).toEqual(['own', 'other', 'other', 'other', 'other']);
    expect(lines[0]!.text).toMatch(/<span class="who">You<\/span> <span class="what">added 1 on &#39;Tasks&#39;<\/span>/);
    expect(lines[1]!.text).toContain('<span class="who">Automation &#39;Weekly review&#39;</span>');
    expect(lines[2]!.text).toContain('<span class="who">Your API key</span> <span class="what">Key bot posted in the chat of &#39;Call the bank&#39;</span>');
    expect(lines[2]!.text).toContain(`<a href="/artifacts/${itemId}">Open the item</a>`);
    expect(lines[3]!.text).toContain('<span class="who">Your API key</span>');
    expect(lines[4]!.text).toContain('<span class="who">Claude Desktop</span>');
    expect(lines[4]!.text).toMatch(/<a href="\/lists\/[0-9a-f-]{36}">Open the list<\/a>/);
    // Europe/London in winter is UTC; the machine-readable time is the instant.
    const at = /<time class="muted" datetime="([^"]+)">([^<]+)<\/time>/.exec(lines[0]!.text)!;
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at[1]!))).toBe(at[2]);
  });

  it('follows the time zone of the person', async () => {
    await server.db('users').where({ id: ada.userId }).update({ timezone: 'Asia/Tokyo' });
    try {
      const line = entries(await (await web.request('/activity')).text())[0]!.text;
      const at = /datetime="([^"]+)">([^<]+)</.exec(line)!;
      expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', dateStyle: 'medium', timeStyle: 'short' }).format(new Date(at[1]!))).toBe(at[2]);
    } finally {
      await server.db('users').where({ id: ada.userId }).update({ timezone: 'Europe/London' });
    }
  });

  it('keeps only what agents and apps did under the filter', async () => {
    const page = await (await web.request('/activity?only=agents')).text();
    expect(page).toContain('<a href="/activity?only=agents" aria-current="true">Only agents and apps</a>');
    const lines = entries(page);
    expect(lines).toHaveLength(4);
    expect(lines.every((l) => l.kind === 'other')).toBe(true);
    expect(page).not.toContain('<span class="who">You</span>');
  });

  it("drops the link of an item that was deleted and never shows another person's activity", async () => {
    const bea = await server.account('Bea', PASSWORD);
    await create_items(server.context(bea), { items: [{ title: 'Bea secret' }] });
    await post_chat_message(server.context(bea), {
      id: (await create_items(server.context(bea), { items: [{ title: 'Bea other' }] })).items[0]!.id,
      message: 'x',
      agentName: 'Bea bot',
    });
    const beas = await (await (await signedIn(server, bea)).request('/activity')).text();
    expect(entries(beas)).toHaveLength(3);
    expect(beas).not.toContain('Call the bank');
    const ours = await (await web.request('/activity')).text();
    expect(ours).not.toMatch(/Bea (secret|other|bot)/);
    // The last row of Bea's page is no cursor into Ada's activity.
    const beaRow = (await server.db('activity').where({ user_id: bea.userId }).orderBy('id', 'desc').first('id')) as { id: string };
    expect(entries(await (await web.request(`/activity?before=${beaRow.id}`)).text())).toHaveLength(0);

    await ada.sdk.DELETE('/items', { body: { itemIds: [itemId] } });
    const after = await (await web.request('/activity')).text();
    expect(after).not.toContain(`href="/artifacts/${itemId}"`);
  });

  it('pages back with Older, keyed on time and id: changes of one moment are neither repeated nor skipped', async () => {
    const cid = await server.account('Cid', PASSWORD);
    // One transaction: all 55 rows share one `at`, so only the id orders them.
    await server.db.transaction(async (trx) => {
      for (let i = 1; i <= 55; i++) await recordActivity(trx, server.context(cid).principal, { action: 'items.updated', summary: `Change ${i}` });
    });
    const browser = await signedIn(server, cid);
    const first = await (await browser.request('/activity')).text();
    const older = /<a href="(\/activity\?before=\d+)" rel="next">Older<\/a>/.exec(first)?.[1];
    expect(older).toBeDefined();
    const second = await (await browser.request(older!)).text();
    expect(second).not.toContain('rel="next"');
    expect(second).toContain('<a href="/activity">Newest</a>');
    const summaries = [first, second].flatMap((page) => entries(page).map((e) => /class="what">([^<]*)</.exec(e.text)![1]));
    expect(summaries).toEqual(Array.from({ length: 55 }, (_, i) => `Change ${55 - i}`));
    expect(entries(first)).toHaveLength(50);
    // The filter carries over to the next page.
    const filtered = await (await browser.request('/activity?only=agents')).text();
    expect(filtered).toMatch(/href="\/activity\?only=agents&amp;before=\d+" rel="next">Older</);
  });

  it('sends a signed-out visitor to sign-in', async () => {
    const res = await new HttpBrowser(server.baseUrl).request('/activity?only=agents');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/signin?next=${encodeURIComponent('/activity?only=agents')}`);
  });
});
