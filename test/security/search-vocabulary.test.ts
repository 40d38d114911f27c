/**
 * The typo vocabulary is per reader: a word one account wrote is a correction only for people
 * who can read it, so whether a misspelling gets corrected tells nobody what another account holds.
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer, type TestAccount } from '../support/server.js';

describe('search vocabulary per reader', () => {
  const { server, ada } = useTestServer({ env: { EMBEDDINGS: 'none' }, search: true });
  let bea: TestAccount;
  beforeAll(async () => {
    bea = await server.account('Bea');
    await ada.sdk.POST('/items', { body: { listId: 'notes', items: [{ title: 'Plomvexdrat inventory', body: 'The plomvexdrat sits in the shed.' }] } });
    await server.pump!.drain();
  });

  const vocabulary = async (who: TestAccount) => (await server.db('search_words').where({ reader_id: who.userId }).pluck('word')) as string[];

  it("keeps a word in its readers' vocabulary only", async () => {
    expect(await vocabulary(ada)).toContain('plomvexdrat');
    expect(await vocabulary(bea)).not.toContain('plomvexdrat');
  });

  it('still corrects a reader’s typo towards their own words', async () => {
    const { data } = await ada.sdk.GET('/search', { params: { query: { q: 'plomvexdrap' } } });
    expect(data!.results.map((r) => r.title)).toEqual(['Plomvexdrat inventory']);
  });
});
