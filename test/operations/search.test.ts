/**
 * GET /search on both backends, wired as serve.ts wires it: items written through the operations reach the index
 * through the outbox (the test drains it), and results are checked through the operation, REST (SDK) and MCP.
 */
import { describe, it, expect, beforeAll, afterAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';
import { startMeilisearch, type MeiliServer } from '../support/meili.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { delete_items } from '../../src/operations/delete_items.js';
import { restore_deleted } from '../../src/operations/restore_deleted.js';
import { update_items } from '../../src/operations/update_items.js';
import { search } from '../../src/operations/search.js';
import { createShare, removeShare } from '../../src/domain/lists/shares.js';

// Loading the model and indexing on 2 busy cores is slow; the default 60 s is for one test, not a fixture.
const SETUP_MS = 240_000;

type Backend = { name: string; start(): Promise<{ env: Record<string, string>; stop(): Promise<void> }> };
const backends: Backend[] = [
  { name: 'postgres', start: async () => ({ env: {}, stop: async () => undefined }) },
  {
    name: 'meilisearch',
    start: async () => {
      const meili: MeiliServer = await startMeilisearch();
      return { env: { SEARCH_BACKEND: 'meilisearch', MEILI_URL: meili.url, MEILI_API_KEY: meili.apiKey }, stop: () => meili.stop() };
    },
  },
];

describe.each(backends)('search on $name', (backend) => {
  let stopBackend: () => Promise<void> = async () => undefined;
  let backendEnv: Record<string, string> = {};
  // Declared before useTestServer, so the backend runs before the app is configured with its address.
  beforeAll(async () => {
    const started = await backend.start();
    stopBackend = started.stop;
    backendEnv = started.env;
  }, SETUP_MS);
  const { server, ada, account } = useTestServer({ env: () => backendEnv, accounts: ['Ada', 'Bea'], search: true });
  const bea = account('Bea');
  const ids: Record<string, string> = {};

  /** Runs the outbox until it is empty and checks nothing failed: every write so far is in the index. */
  const indexed = async () => {
    await server.pump!.drain();
    const left = (await server.db('outbox').where({ topic: 'item' }).select('id', 'last_error')) as { last_error: string | null }[];
    expect(left).toEqual([]);
  };
  const find = async (account: TestAccount, q: string, extra: { limit?: number; after?: string; before?: string } = {}) =>
    search(server.context(account), { q, ...extra });
  const titles = (result: { results: { title: string | null }[] }) => result.results.map((r) => r.title);

  // biome-ignore lint/suspicious/noDuplicateTestHooks: the backend starts in the hook before useTestServer's, the data is written in this one after it.
  beforeAll(async () => {
    const notes = await create_items(server.context(ada), {
      listId: 'notes',
      items: [
        { title: 'Vehicle policy renewal', body: 'Allianz renews on 3 March; premium 640 a year, compare quotes two weeks before.' },
        { title: 'Chocolate cake', body: 'Flour, sugar, cocoa and eggs. Bake 35 minutes at 180 degrees.' },
        { title: 'Barbecue shopping list', body: 'Sausages, halloumi, corn on the cob, charcoal' },
        { title: 'Passport renewal', body: 'Photos from the booth at the station, form at the post office.' },
      ],
    });
    for (const item of notes.items) ids[item.title!] = item.id;
    const tasks = await create_items(server.context(ada), {
      items: [{ title: 'Replace smoke alarm battery', body: 'The hallway one keeps chirping at night.' }],
    });
    ids['Replace smoke alarm battery'] = tasks.items[0]!.id;
    const beas = await create_items(server.context(bea), {
      listId: 'notes',
      items: [{ title: 'Motor insurance quote', body: "Bea's car: third party, fire and theft." }],
    });
    ids['Motor insurance quote'] = beas.items[0]!.id;
    await indexed();
  }, SETUP_MS);
  // After useTestServer's afterAll (jest runs them in the order declared): the server is closed first.
  afterAll(async () => stopBackend());

  it('finds "vehicle policy renewal" for "car insurance", best first, with its list and link', async () => {
    const result = await find(ada, 'car insurance');
    expect(result.results[0]).toEqual({
      itemId: ids['Vehicle policy renewal'],
      title: 'Vehicle policy renewal',
      passage: expect.stringContaining('Allianz renews on 3 March'),
      score: expect.any(Number),
      listId: expect.any(String),
      listName: 'Notes',
      listIcon: '📝',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      webUrl: `${server.config.webOrigin}/artifacts/${ids['Vehicle policy renewal']}`,
    });
    expect(result.count).toBe(result.results.length);
    const scores = result.results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('answers the same through REST (SDK) and MCP', async () => {
    const viaOperation = await find(ada, 'car insurance');
    const rest = await ada.sdk.GET('/search', { params: { query: { q: 'car insurance' } } });
    expect(rest.response.status).toBe(200);
    expect(rest.data).toEqual(viaOperation);
    const mcp = await (await server.mcp(ada)).callTool({ name: 'search', arguments: { q: 'car insurance' } });
    expect(mcp.isError).toBeFalsy();
    expect(mcp.structuredContent).toEqual(viaOperation);
  });

  it('forgives a typo', async () => {
    expect(titles(await find(ada, 'choclate cake'))[0]).toBe('Chocolate cake');
    expect(titles(await find(ada, 'smoke alarm batery'))[0]).toBe('Replace smoke alarm battery');
  });

  it("never shows another account's items", async () => {
    expect(titles(await find(bea, 'car insurance'))).toEqual(['Motor insurance quote']);
    expect(titles(await find(ada, 'car insurance'))).not.toContain('Motor insurance quote');
    expect((await find(bea, 'chocolate cake')).count).toBe(0);
  });

  it('finds an item shared with the recipient, and stops when the share is removed', async () => {
    expect(titles(await find(bea, 'barbecue charcoal'))).toEqual([]);
    const share = await createShare(server.db, { itemId: ids['Barbecue shopping list']! }, bea.userId);
    await indexed();
    expect(titles(await find(bea, 'barbecue charcoal'))).toEqual(['Barbecue shopping list']);
    await removeShare(server.db, share.id);
    await indexed();
    expect(titles(await find(bea, 'barbecue charcoal'))).toEqual([]);
  });

  it('drops a trashed item at once, even before the index hears of it, and a restore brings it back', async () => {
    const id = ids['Passport renewal']!;
    expect(titles(await find(ada, 'passport renewal'))[0]).toBe('Passport renewal');
    await delete_items(server.context(ada), { itemIds: [id] });
    // The index still holds it until the outbox runs: the live-items check keeps it out all the same.
    expect(await server.db('outbox').where({ subject_id: id }).first()).toBeDefined();
    expect(titles(await find(ada, 'passport renewal'))).not.toContain('Passport renewal');
    await indexed();
    expect(titles(await find(ada, 'passport renewal'))).not.toContain('Passport renewal');
    await restore_deleted(server.context(ada), { type: 'item', id });
    await indexed();
    expect(titles(await find(ada, 'passport renewal'))[0]).toBe('Passport renewal');
  });

  it('finds an edit, by its new words', async () => {
    const id = ids['Replace smoke alarm battery']!;
    expect((await find(ada, 'Okonkwo')).count).toBe(0);
    await update_items(server.context(ada), { items: [{ itemId: id, body: 'Ask the landlord, Mr Okonkwo, which model fits.' }] });
    await indexed();
    const hit = (await find(ada, 'Okonkwo')).results[0];
    expect(hit).toMatchObject({ itemId: id, passage: expect.stringContaining('Mr Okonkwo') });
  });

  it('finds row values and a list by its name', async () => {
    const books = await create_list(server.context(ada), { name: 'Books to read', properties: [{ name: 'Author', type: 'text' }] });
    const made = await create_items(server.context(ada), { listId: books.id, items: [{ title: 'Dune', values: { Author: 'Frank Herbert' } }] });
    await indexed();
    const byAuthor = (await find(ada, 'frank herbert')).results[0];
    expect(byAuthor).toMatchObject({
      itemId: made.items[0]!.id,
      listName: 'Books to read',
      listIcon: null,
      passage: expect.stringContaining('Author: Frank Herbert'),
    });
  });

  it('returns nothing for nonsense', async () => {
    expect(await find(ada, 'zqxv wrrbl')).toEqual({ count: 0, results: [] });
  });

  it('keeps to limit and to the creation window', async () => {
    const many = await find(ada, 'renewal insurance cake battery barbecue', { limit: 1 });
    expect(many.count).toBe(1);
    expect((await find(ada, 'car insurance', { after: new Date(Date.now() + 60_000).toISOString() })).count).toBe(0);
    expect((await find(ada, 'car insurance', { before: '2000-01-01T00:00:00Z' })).count).toBe(0);
    const created = (await find(ada, 'car insurance')).results[0]!.createdAt;
    expect(titles(await find(ada, 'car insurance', { after: created }))[0]).toBe('Vehicle policy renewal');
    expect(titles(await find(ada, 'car insurance', { before: created }))).not.toContain('Vehicle policy renewal');
  });

  it('refuses a bad call with a sentence naming the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /q/],
      [{ q: 'x', limit: 21 }, /limit/],
      [{ q: 'x', limit: 0 }, /limit/],
      [{ q: 'x', after: 'yesterday' }, /after/],
    ];
    for (const [query, message] of cases) {
      const res = await fetch(`${server.baseUrl}/api/v1/search?${new URLSearchParams(query as Record<string, string>)}`, {
        headers: { Authorization: `Bearer ${ada.key}` },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid', error: expect.stringMatching(message) });
    }
  });
});
