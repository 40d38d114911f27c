import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Meilisearch } from 'meilisearch';
import type { SearchDoc, SearchIndex } from '../../src/core/search-index.js';
import { defaultLocalModel } from '../../src/search/embedders/index.js';
import { LocalEmbedder } from '../../src/search/embedders/local.js';
import { PostgresSearchIndex } from '../../src/search/postgres.js';
import { MeiliSearchIndex } from '../../src/search/meili.js';
import { migrate } from '../../src/store/db.js';
import { createTestDatabase } from '../support/db.js';
import { startMeilisearch } from '../support/meili.js';

/** A backend under test: the index plus how to shut down what it runs on. */
interface Backend {
  index: SearchIndex;
  close(): Promise<void>;
}

// One model for the whole file: loading it is the slow part, and both backends must see the same vectors.
const embedder = new LocalEmbedder(defaultLocalModel());

const backends: [string, () => Promise<Backend>][] = [
  [
    'postgres',
    async () => {
      const db = await createTestDatabase();
      await migrate(db.knex);
      return { index: new PostgresSearchIndex(db.knex, embedder), close: () => db.drop() };
    },
  ],
  [
    'meilisearch',
    async () => {
      const server = await startMeilisearch();
      const client = new Meilisearch({ host: server.url, apiKey: server.apiKey });
      return { index: new MeiliSearchIndex(client, embedder, { indexUid: 'test_passages' }), close: () => server.stop() };
    },
  ],
];

const alice = randomUUID();
const bob = randomUUID();
const carol = randomUUID();
const notes = randomUUID();
const todo = randomUUID();

function doc(fields: Partial<SearchDoc> & { title: string }): SearchDoc {
  return {
    itemId: randomUUID(),
    ownerId: alice,
    readerIds: [alice],
    listId: notes,
    listName: 'Notes',
    body: null,
    createdAt: new Date('2026-05-01T12:00:00Z'),
    ...fields,
  };
}

const vehicle = doc({ title: 'Vehicle policy renewal', body: 'Allianz renews on 3 March; premium 640 a year, compare quotes two weeks before.' });
const smokeAlarm = doc({ title: 'Replace smoke alarm battery', body: 'Hallway one keeps chirping at night', listId: todo, listName: 'To do' });
const travelInsurance = doc({ title: 'Travel insurance', body: 'Annual family policy with Voyager, emergency line on the card.' });
const cake = doc({ title: 'Chocolate cake', body: 'Flour, sugar, cocoa and eggs. Bake 35 minutes.', listName: 'Recipes' });
const network = doc({
  title: 'Home network',
  body: [
    'Router is the white box in the hall cupboard, fibre comes in behind it.',
    '',
    'Support line 0800 555 0199, account number 88120334.',
    '',
    '## Devices',
    'The printer has a fixed address so the laptops find it.',
    'The TV and the speaker are on the guest network.',
    '',
    '## Wifi',
    'The wifi password is blue-otter-42-harbour since we changed it in March.',
    'Guest password is visiting-friends.',
  ].join('\n'),
});
const sharedWithBob = doc({ title: 'Barbecue shopping list', body: 'Sausages, halloumi, corn, charcoal', readerIds: [alice, bob] });
const carolsDiary = doc({ title: 'Carol diary: smoke alarm battery', body: 'My own smoke alarm battery note', ownerId: carol, readerIds: [carol] });
const january = doc({ title: 'Gym plan January', body: 'Gym sessions on Mondays', createdAt: new Date('2026-01-10T00:00:00Z') });
const february = doc({ title: 'Gym plan February', body: 'Gym sessions on Tuesdays', createdAt: new Date('2026-02-10T00:00:00Z') });
const march = doc({ title: 'Gym plan March', body: 'Gym sessions on Fridays', createdAt: new Date('2026-03-10T00:00:00Z') });

// A look-up ("shed lock"): one item has both words, one only "sheds", one none but sounds alike (labeled set items).
const shed = doc({ title: 'Fit a lock on the shed', body: 'After the thefts on Elm Street', listId: todo, listName: 'Home jobs' });
const watch = doc({
  title: 'Neighbourhood watch meeting',
  body: 'Two bikes stolen from sheds on Elm Street. Police suggest shed alarms and marking bikes. Next meeting in the community centre in March.',
});
const gutters = doc({ title: 'Clean the gutters', body: 'Before autumn, borrow the long ladder from Dev next door', listId: todo, listName: 'To do' });

const all = [vehicle, smokeAlarm, travelInsurance, cake, network, sharedWithBob, carolsDiary, january, february, march, shed, watch, gutters];

describe.each(backends)('search on %s', (_name, open) => {
  let backend: Backend;
  let index: SearchIndex;

  beforeAll(async () => {
    backend = await open();
    index = backend.index;
    await index.upsert(all);
  }, 180_000);

  afterAll(async () => {
    await backend?.close();
  });

  const ids = async (readerId: string, text: string, extra: { limit?: number; after?: Date; before?: Date } = {}) =>
    (await index.search({ readerId, text, limit: extra.limit ?? 10, after: extra.after, before: extra.before })).map((h) => h.itemId);

  it('finds an item by its exact words, first', async () => {
    const hits = await ids(alice, 'smoke alarm battery');
    expect(hits[0]).toBe(smokeAlarm.itemId);
  });

  it('finds a paraphrase that shares no word with the query', async () => {
    expect(await ids(alice, 'car insurance')).toContain(vehicle.itemId);
    expect(await ids(alice, 'Find the note about the car insurance')).toContain(vehicle.itemId);
  });

  it('ranks an item with some of the words of a look-up above one that only sounds alike', async () => {
    const hits = await ids(alice, 'shed lock');
    expect(hits[0]).toBe(shed.itemId);
    expect(hits).toContain(watch.itemId);
    const below = hits.indexOf(gutters.itemId);
    if (below !== -1) expect(below).toBeGreaterThan(hits.indexOf(watch.itemId));
  });

  it('tolerates a typo', async () => {
    expect(await ids(alice, 'insurnace')).toContain(travelInsurance.itemId);
  });

  it("never shows another person's item", async () => {
    expect(await ids(alice, 'Carol diary smoke alarm battery')).not.toContain(carolsDiary.itemId);
    const carols = await ids(carol, 'smoke alarm battery');
    expect(carols).toEqual([carolsDiary.itemId]);
  });

  it('shows a shared item to the person it is shared with, and nothing else of the owner', async () => {
    expect(await ids(bob, 'barbecue shopping')).toEqual([sharedWithBob.itemId]);
    expect(await ids(bob, 'smoke alarm battery')).toEqual([]);
  });

  it('filters by creation time: after inclusive, before exclusive', async () => {
    const between = await ids(alice, 'gym plan', { after: february.createdAt, before: march.createdAt });
    expect(between).toEqual([february.itemId]);
    const fromFebruary = await ids(alice, 'gym plan', { after: february.createdAt });
    expect(new Set(fromFebruary)).toEqual(new Set([february.itemId, march.itemId]));
  });

  it('returns at most limit results', async () => {
    expect(await ids(alice, 'gym plan', { limit: 3 })).toHaveLength(3);
    expect(await ids(alice, 'gym plan', { limit: 2 })).toHaveLength(2);
  });

  it('returns the matching paragraph of a long note, not its first line', async () => {
    const [hit] = await index.search({ readerId: alice, text: 'wifi password', limit: 5 });
    expect(hit?.itemId).toBe(network.itemId);
    expect(hit?.passage).toContain('blue-otter-42-harbour');
    expect(hit?.passage).not.toContain('white box in the hall cupboard');
    expect(hit?.passage.startsWith('Home network')).toBe(true);
  });

  it('returns nothing for a query nothing relevant matches', async () => {
    expect(await ids(alice, 'xqzt blorf')).toEqual([]);
    expect(await ids(alice, 'quantum chromodynamics lecture')).toEqual([]);
  });

  it('matches the new text of an updated item and no longer the old one', async () => {
    const edited = { ...cake, title: 'Lemon drizzle cake', body: 'Pour the lemon syrup over the warm sponge.' };
    await index.upsert([edited]);
    const [hit] = await index.search({ readerId: alice, text: 'lemon drizzle', limit: 5 });
    expect(hit?.itemId).toBe(cake.itemId);
    expect(hit?.passage).toContain('lemon syrup');
    const byOldWords = await index.search({ readerId: alice, text: 'cocoa', limit: 5, mode: 'keyword' });
    expect(byOldWords.map((h) => h.itemId)).not.toContain(cake.itemId);
  });

  it('keeps only the new passages of a long note cut short, also when two indexers write it at once', async () => {
    const short = { ...network, body: 'Router moved to the study.' };
    await Promise.all([index.upsert([short]), index.upsert([short])]);
    const byOldWords = await index.search({ readerId: alice, text: 'blue-otter-42-harbour guest password', limit: 5, mode: 'keyword' });
    expect(byOldWords.map((h) => h.itemId)).not.toContain(network.itemId);
    const [hit] = await index.search({ readerId: alice, text: 'router study', limit: 5, mode: 'keyword' });
    expect(hit?.itemId).toBe(network.itemId);
    expect(hit?.passage).toContain('moved to the study');
  });

  it('drops a removed item', async () => {
    expect(await ids(alice, 'travel insurance')).toContain(travelInsurance.itemId);
    await index.remove([travelInsurance.itemId]);
    expect(await ids(alice, 'travel insurance')).not.toContain(travelInsurance.itemId);
  });
});

describe.each(backends)('a misspelt word no item uses, on %s', (_name, open) => {
  let backend: Backend;
  // Nothing here says "insurance": the typo cannot be corrected from the items' own words.
  const policy = doc({ title: 'Vehicle policy renewal', body: 'Allianz renews on 3 March; premium 640 a year, compare quotes two weeks before.' });
  const gutter = doc({ title: 'Clean the gutters', body: 'Before autumn, borrow the long ladder from Dev next door' });

  beforeAll(async () => {
    backend = await open();
    await backend.index.upsert([policy, gutter]);
  }, 180_000);

  afterAll(async () => {
    await backend?.close();
  });

  it('is embedded as the closest word the model knows, so the meaning still finds the item', async () => {
    for (const text of ['car insurnace', 'Find the note about the car insurnace']) {
      const hits = await backend.index.search({ readerId: alice, text, limit: 10 });
      expect(hits.map((h) => h.itemId)).toEqual([policy.itemId]);
    }
  });
});

const sweep = doc({ title: 'Get the chimney swept', body: 'Before lighting the wood burner this winter', listId: todo, listName: 'Home jobs' });
const sleep = doc({ title: 'Sleep routine for Mia', body: 'Bath at 6, in the cot awake by 7. White noise on.' });

describe('keyword-only search on postgres (embedder kind none)', () => {
  let close: () => Promise<void>;
  let index: SearchIndex;

  beforeAll(async () => {
    const db = await createTestDatabase();
    await migrate(db.knex);
    close = () => db.drop();
    index = new PostgresSearchIndex(db.knex, null);
    await index.upsert([vehicle, smokeAlarm, travelInsurance, network, sweep, sleep]);
  });

  afterAll(async () => {
    await close?.();
  });

  it('still finds exact words and typos, returns the matching passage, and nothing for nonsense', async () => {
    const [alarm] = await index.search({ readerId: alice, text: 'smoke alarm', limit: 5 });
    expect(alarm?.itemId).toBe(smokeAlarm.itemId);
    expect((await index.search({ readerId: alice, text: 'insurnace', limit: 5 })).map((h) => h.itemId)).toEqual([travelInsurance.itemId]);
    const [wifi] = await index.search({ readerId: alice, text: 'wifi password', limit: 5 });
    expect(wifi?.passage).toContain('blue-otter-42-harbour');
    expect(await index.search({ readerId: alice, text: 'xqzt blorf', limit: 5 })).toEqual([]);
  });

  it('does not "correct" a real word into another one', async () => {
    // No item says "sweep", but "sweep" is a word: "sleep" (one edit away) is not what was meant.
    expect((await index.search({ readerId: alice, text: 'chimney sweep', limit: 5 })).map((h) => h.itemId)).toEqual([sweep.itemId]);
  });
});

describe('keyword-only search on meilisearch (embedder kind none)', () => {
  let server: Awaited<ReturnType<typeof startMeilisearch>>;
  let index: SearchIndex;

  beforeAll(async () => {
    server = await startMeilisearch();
    const client = new Meilisearch({ host: server.url, apiKey: server.apiKey });
    index = new MeiliSearchIndex(client, null, { indexUid: 'test_keyword_only' });
    await index.upsert([vehicle, smokeAlarm, travelInsurance, network, sweep, sleep]);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('finds exact words and the matching passage, and nothing for nonsense', async () => {
    const [alarm] = await index.search({ readerId: alice, text: 'smoke alarm', limit: 5 });
    expect(alarm?.itemId).toBe(smokeAlarm.itemId);
    const [wifi] = await index.search({ readerId: alice, text: 'wifi password', limit: 5 });
    expect(wifi?.passage).toContain('blue-otter-42-harbour');
    expect(await index.search({ readerId: alice, text: 'xqzt blorf', limit: 5 })).toEqual([]);
  });
});
