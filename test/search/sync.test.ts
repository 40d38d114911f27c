/**
 * The outbox consumer that keeps the index current: what it indexes for an item, how it follows lists, shares,
 * moves, the trash and the purge, that a failing index never fails a write, and batching. Keyword-only
 * (EMBEDDINGS=none), so no model loads: the consumer's job is the same with any embedder.
 */
import { describe, it, expect } from '@jest/globals';
import { pino } from 'pino';
import { useTestServer } from '../support/server.js';
import { startOutboxPump, type OutboxPump } from '../../src/jobs/outbox.js';
import { syncItems } from '../../src/search/sync.js';
import { searchSync } from '../../src/jobs/search-sync.js';
import { PostgresSearchIndex } from '../../src/search/postgres.js';
import type { SearchDoc, SearchHit, SearchIndex } from '../../src/core/search-index.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { update_items } from '../../src/operations/update_items.js';
import { delete_items } from '../../src/operations/delete_items.js';
import { restore_deleted } from '../../src/operations/restore_deleted.js';

/** An index that records what it is asked to do, and can be told to fail. */
class RecordingIndex implements SearchIndex {
  readonly name = 'recording';
  upserts: SearchDoc[][] = [];
  removals: string[][] = [];
  failWith: Error | null = null;
  onUpsert: ((docs: SearchDoc[]) => Promise<void>) | null = null;
  async upsert(docs: SearchDoc[]): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.upserts.push(docs);
    await this.onUpsert?.(docs);
  }
  async remove(itemIds: string[]): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.removals.push(itemIds);
  }
  async search(): Promise<SearchHit[]> {
    return [];
  }
  reset(): void {
    this.upserts = [];
    this.removals = [];
  }
}

describe('search sync (outbox topic item)', () => {
  const log = pino({ level: 'silent' });
  const pumps: OutboxPump[] = [];
  /** A pump over `index` whose timer never fires during a test: drain() is the only way rows move. */
  const pumpFor = (index: SearchIndex) => {
    const pump = startOutboxPump(server.db, { item: searchSync(server.db, index, log) }, log, 3_600_000);
    pumps.push(pump);
    return pump;
  };
  const { server, ada, account } = useTestServer({
    env: { EMBEDDINGS: 'none' },
    accounts: ['Ada', 'Bea'],
    beforeClose: async () => {
      for (const pump of pumps) await pump.stop();
    },
  });
  const bea = account('Bea');
  const passages = (itemId: string) =>
    server.db('search_passages').where({ item_id: itemId }).orderBy('passage_no') as Promise<
      { list_id: string; list_name: string; reader_ids: string[]; text: string }[]
    >;

  it('indexes an item once per batch however many rows it has, with list name, readers and row values', async () => {
    const index = new RecordingIndex();
    const pump = pumpFor(index);
    const books = await create_list(server.context(ada), {
      name: 'Books',
      properties: [
        { name: 'Author', type: 'text' },
        { name: 'Read', type: 'checkbox' },
      ],
    });
    const id = (await create_items(server.context(ada), { listId: books.id, items: [{ title: 'Dune', values: { Author: 'Frank Herbert', Read: true } }] }))
      .items[0]!.id;
    await update_items(server.context(ada), { items: [{ itemId: id, title: 'Dune (1965)' }] });
    await update_items(server.context(ada), { items: [{ itemId: id, body: 'Desert planet.' }] });
    expect(Number((await server.db('outbox').where({ subject_id: id }).count({ n: '*' }))[0]!.n)).toBeGreaterThanOrEqual(3);
    await pump.drain();
    expect(index.upserts).toHaveLength(1);
    expect(index.upserts[0]).toEqual([
      {
        itemId: id,
        ownerId: ada.userId,
        readerIds: [ada.userId],
        listId: books.id,
        listName: 'Books',
        title: 'Dune (1965)',
        body: 'Desert planet.',
        values: 'Author: Frank Herbert',
        createdAt: expect.any(Date),
      },
    ]);
    expect(await server.db('outbox').where({ subject_id: id })).toEqual([]);
  });

  it('follows the trash, a restore and the purge', async () => {
    const index = new PostgresSearchIndex(server.db, null);
    const pump = pumpFor(index);
    const id = (await create_items(server.context(ada), { listId: 'notes', items: [{ title: 'Gate code', body: '4711 then the bell' }] })).items[0]!.id;
    await pump.drain();
    expect(await passages(id)).toHaveLength(1);
    await delete_items(server.context(ada), { itemIds: [id] });
    await pump.drain();
    expect(await passages(id)).toEqual([]);
    await restore_deleted(server.context(ada), { type: 'item', id });
    await pump.drain();
    expect(await passages(id)).toHaveLength(1);
    await server.db('items').where({ id }).delete();
    await pump.drain();
    expect(await passages(id)).toEqual([]);
  });

  it('reindexes the live items of a renamed list, and an item moved to another list', async () => {
    const index = new PostgresSearchIndex(server.db, null);
    const pump = pumpFor(index);
    const garage = await create_list(server.context(ada), { name: 'Garage' });
    const made = await create_items(server.context(ada), { listId: garage.id, items: [{ title: 'Winter tyres' }, { title: 'Old ladder' }] });
    const [tyres, ladder] = made.items.map((i) => i.id) as [string, string];
    await delete_items(server.context(ada), { itemIds: [ladder] });
    await pump.drain();
    expect((await passages(tyres))[0]).toMatchObject({ list_name: 'Garage' });

    await server.db('lists').where({ id: garage.id }).update({ name: 'Workshop' });
    // One row per live item of the list; the trashed one is not in the index and stays out.
    expect(
      (await server.db('outbox').where({ topic: 'item' })).map((r: { subject_id: string; payload: { op: string } }) => [r.subject_id, r.payload.op]),
    ).toEqual([[tyres, 'list']]);
    await server.db('lists').where({ id: garage.id }).update({ icon: '🔧' });
    expect(await server.db('outbox').where({ topic: 'item' })).toHaveLength(1);
    await pump.drain();
    expect((await passages(tyres))[0]).toMatchObject({ list_name: 'Workshop' });
    expect((await index.search({ readerId: ada.userId, text: 'workshop', limit: 10 })).map((h) => h.itemId)).toEqual([tyres]);

    const shed = await create_list(server.context(ada), { name: 'Shed' });
    await server.db('items').where({ id: tyres }).update({ list_id: shed.id });
    await pump.drain();
    expect((await passages(tyres))[0]).toMatchObject({ list_id: shed.id, list_name: 'Shed' });
  });

  it('gives the readers of a list share to every item on the list', async () => {
    const index = new PostgresSearchIndex(server.db, null);
    const pump = pumpFor(index);
    const trip = await create_list(server.context(ada), { name: 'Trip' });
    const id = (await create_items(server.context(ada), { listId: trip.id, items: [{ title: 'Book ferry' }] })).items[0]!.id;
    await server.db('shares').insert({ owner_id: ada.userId, recipient_id: bea.userId, list_id: trip.id });
    await syncItems(server.db, index, [id]);
    expect((await passages(id))[0]!.reader_ids.sort()).toEqual([ada.userId, bea.userId].sort());
    await pump.drain();
  });

  it('never fails a write when the index fails; the outbox keeps the rows and a later try indexes them', async () => {
    const index = new RecordingIndex();
    const pump = pumpFor(index);
    index.failWith = new Error('meilisearch is down');
    const result = await create_items(server.context(ada), { listId: 'notes', items: [{ title: 'Written while search was down' }] });
    expect(result.added).toBe(1);
    const id = result.items[0]!.id;
    await pump.drain();
    const row = (await server.db('outbox').where({ subject_id: id }).first()) as { attempts: number; last_error: string; available_at: Date };
    expect(row).toMatchObject({ attempts: 1, last_error: 'meilisearch is down' });
    expect(row.available_at.getTime()).toBeGreaterThan(Date.now());

    index.failWith = null;
    await server.db('outbox').where({ subject_id: id }).update({ available_at: server.db.fn.now() });
    await pump.drain();
    expect(index.upserts.flat().map((d) => d.title)).toEqual(['Written while search was down']);
    expect(await server.db('outbox').where({ subject_id: id })).toEqual([]);
  });

  it('indexes a large batch in parts of at most 100 items', async () => {
    const index = new RecordingIndex();
    const pump = pumpFor(index);
    const entries = Array.from({ length: 100 }, (_, i) => ({ title: `Row ${i}` }));
    const list = await create_list(server.context(ada), { name: 'Bulk' });
    await create_items(server.context(ada), { listId: list.id, items: entries });
    await create_items(server.context(ada), { listId: list.id, items: entries.slice(0, 50) });
    await pump.drain();
    const sizes = index.upserts.map((docs) => docs.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(150);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
  });

  it('indexes an item again when it changed while being indexed', async () => {
    const index = new RecordingIndex();
    const id = (await create_items(server.context(ada), { listId: 'notes', items: [{ title: 'First title' }] })).items[0]!.id;
    // A concurrent writer commits between this indexer's read and its write.
    index.onUpsert = async () => {
      index.onUpsert = null;
      await server.db('items').where({ id }).update({ title: 'Second title' });
    };
    await syncItems(server.db, index, [id]);
    expect(index.upserts.map((docs) => docs.map((d) => d.title))).toEqual([['First title'], ['Second title']]);
    await server.db('outbox').delete();
  });
});
