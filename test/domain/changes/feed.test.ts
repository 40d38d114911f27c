/**
 * The changes feed never skips or repeats a change, even when transactions commit out of the
 * order they started in: several concurrent writers with overlapping long and short
 * transactions, one reader paging with nextChangedSince, and at the end the reader has seen
 * the last state of every item.
 */
import { describe, it, expect } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { useTestServer } from '../../support/server.js';
import { create_items } from '../../../src/operations/create_items.js';
import { list_items } from '../../../src/operations/list_items.js';
import { update_items } from '../../../src/operations/update_items.js';
import { delete_items } from '../../../src/operations/delete_items.js';
import { restore_deleted } from '../../../src/operations/restore_deleted.js';
import { sequenceBatch, sequencePending } from '../../../src/domain/changes/feed.js';
import { startSequencer } from '../../../src/jobs/feed-sequencer.js';

describe('changes feed', () => {
  const { server, ada } = useTestServer();
  const ctx = () => server.context(ada);

  it('reports edits, completions, archives, deletions and restores, oldest first', async () => {
    const start = (await list_items(ctx(), { changedSince: '2000-01-01T00:00:00Z' })).nextChangedSince!;
    const [a, b, c] = (await create_items(ctx(), { items: [{ title: 'a' }, { title: 'b' }, { title: 'c' }] })).items.map((i) => i.id);
    await update_items(ctx(), { items: [{ itemId: a! }], taskStatus: 'completed' });
    await update_items(ctx(), { items: [{ itemId: b! }], archived: true });
    await delete_items(ctx(), { itemIds: [c!] });
    const page = await list_items(ctx(), { changedSince: start });
    expect(page.items.map((i) => [i.title, i.taskStatus, i.archivedAt !== null])).toEqual([
      ['a', 'completed', false],
      ['b', 'todo', true],
    ]);
    expect(page.deleted!.map((t) => t.id)).toEqual([c]);
    expect(page.hasMore).toBe(false);
    await restore_deleted(ctx(), { type: 'item', id: c! });
    const after = await list_items(ctx(), { changedSince: page.nextChangedSince! });
    expect(after.items.map((i) => i.id)).toEqual([c]);
    expect(after.deleted).toEqual([]);
    expect((await list_items(ctx(), { changedSince: after.nextChangedSince! })).items).toEqual([]);
  });

  it('pages with hasMore and a position cursor, and refuses a malformed cursor', async () => {
    const start = (await list_items(ctx(), { changedSince: '2000-01-01T00:00:00Z', limit: 200 })).nextChangedSince!;
    await create_items(ctx(), { items: Array.from({ length: 5 }, (_, i) => ({ title: `p${i}` })) });
    const first = await list_items(ctx(), { changedSince: start, limit: 2 });
    expect(first).toMatchObject({ hasMore: true, count: 2 });
    expect(first.nextChangedSince).toMatch(/~\d+$/);
    const second = await list_items(ctx(), { changedSince: first.nextChangedSince!, limit: 10 });
    expect([...first.items, ...second.items].map((i) => i.title)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
    const bad = await ada.sdk.GET('/items', { params: { query: { changedSince: 'yesterday' } } });
    expect(bad.response.status).toBe(400);
  });

  it('positions a backlog in bounded steps, oldest writes first, and a reader still sees all of it in order', async () => {
    const start = (await list_items(ctx(), { changedSince: '2000-01-01T00:00:00Z', limit: 200 })).nextChangedSince!;
    const made = (await create_items(ctx(), { items: Array.from({ length: 7 }, (_, i) => ({ title: `b${i}` })) })).items.map((i) => i.id);
    const renamed = made[0]!;
    await update_items(ctx(), { items: [{ itemId: renamed, title: 'b0 renamed' }] });
    expect(await sequenceBatch(server.db, 3)).toBe(3);
    const positioned = (await server.db('items').whereIn('id', made).whereNotNull('feed_seq').pluck('id')) as string[];
    // The creating transaction came first: three of its rows, never the later rename.
    expect(positioned).toHaveLength(3);
    expect(positioned).not.toContain(renamed);
    const page = await list_items(ctx(), { changedSince: start, limit: 200 });
    // One transaction's rows come in id order; the later rename comes after all of them.
    expect(
      page.items
        .slice(0, 6)
        .map((i) => i.title)
        .sort(),
    ).toEqual(['b1', 'b2', 'b3', 'b4', 'b5', 'b6']);
    expect(page.items.map((i) => i.title).at(-1)).toBe('b0 renamed');
    expect(page.items).toHaveLength(7);
  });

  it('lets a reader through without the sequencer lock when no change waits for a position', async () => {
    await sequencePending(server.db);
    const holder = await server.db.transaction();
    try {
      // Another process sequencing right now holds the lock.
      await holder.raw('SELECT pg_advisory_xact_lock(7270011)');
      const read = list_items(ctx(), { listId: 'tasks', changedSince: '2000-01-01T00:00:00Z' } as never);
      const answered = await Promise.race([read.then(() => true), sleep(2000).then(() => false)]);
      expect(answered).toBe(true);
    } finally {
      await holder.rollback();
    }
  });

  it("leaves another account's waiting change to the sequencer: a reader positions only its own", async () => {
    const eve = await server.account('Eve');
    await sequencePending(server.db);
    const id = (await create_items(server.context(eve), { items: [{ title: 'elsewhere' }] })).items[0]!.id;
    await list_items(ctx(), { listId: 'tasks', changedSince: '2000-01-01T00:00:00Z' } as never);
    await list_items(ctx(), { changedSince: '2000-01-01T00:00:00Z' });
    expect((await server.db('items').where({ id }).first()).feed_seq).toBeNull();
    // Eve's own read positions it, and she sees her write.
    const page = await list_items(server.context(eve), { changedSince: '2000-01-01T00:00:00Z' });
    expect(page.items.map((i) => i.id)).toContain(id);
    expect((await server.db('items').where({ id }).first()).feed_seq).not.toBeNull();
  });

  it('the background sequencer positions writes without any reader', async () => {
    const sequencer = startSequencer(server.db, { warn: () => undefined }, 50);
    try {
      const id = (await create_items(ctx(), { items: [{ title: 'unread' }] })).items[0]!.id;
      for (let i = 0; i < 100 && (await server.db('items').where({ id }).first()).feed_seq === null; i++) await sleep(50);
      expect((await server.db('items').where({ id }).first()).feed_seq).not.toBeNull();
    } finally {
      await sequencer.stop();
    }
  });

  it('leaves items shared with the caller out of their feed', async () => {
    const bea = await server.account('Bea');
    const { createShare } = await import('../../../src/domain/lists/shares.js');
    const start = (await list_items(server.context(bea), { changedSince: '2000-01-01T00:00:00Z' })).nextChangedSince!;
    const id = (await create_items(ctx(), { items: [{ title: 'shared' }] })).items[0]!.id;
    await createShare(server.db, { itemId: id }, bea.userId);
    await update_items(ctx(), { items: [{ itemId: id, title: 'shared, edited' }] });
    expect((await list_items(server.context(bea), { changedSince: start })).items).toEqual([]);
  });

  it('hands out a change that was written early and committed late, after a later change', async () => {
    const dan = await server.account('Dan');
    const dctx = server.context(dan);
    const [a, b] = (await create_items(dctx, { items: [{ title: 'a0' }, { title: 'b0' }] })).items.map((i) => i.id);
    let cursor = (await list_items(dctx, { changedSince: '2000-01-01T00:00:00Z' })).nextChangedSince!;
    const long = await server.db.transaction();
    let before: Awaited<ReturnType<typeof list_items>>;
    try {
      await long('items').where({ id: a }).update({ title: 'a1' });
      await server.db('items').where({ id: b }).update({ title: 'b1' });
      before = await list_items(dctx, { changedSince: cursor });
    } finally {
      await long.commit();
    }
    expect(before.items.map((i) => i.title)).toEqual(['b1']);
    cursor = before.nextChangedSince!;
    const after = await list_items(dctx, { changedSince: cursor });
    expect(after.items.map((i) => i.title)).toEqual(['a1']);
  });

  it('misses nothing and repeats nothing with concurrent, overlapping long and short writers', async () => {
    const carl = await server.account('Carl');
    const cctx = server.context(carl);
    const ids = (await create_items(cctx, { items: Array.from({ length: 40 }, (_, i) => ({ title: `v0-${i}` })) })).items.map((i) => i.id);
    let cursor = (await list_items(cctx, { changedSince: '2000-01-01T00:00:00Z', limit: 200 })).nextChangedSince!;
    // Drain everything so far: the reader starts from the current state.
    const seen = new Map<string, string>();
    const deliveries: string[] = [];
    const readPage = async () => {
      const page = await list_items(cctx, { changedSince: cursor, limit: 5 });
      for (const item of page.items) {
        seen.set(item.id, item.title!);
        deliveries.push(`${item.id}:${item.title}`);
      }
      cursor = page.nextChangedSince!;
      return page.hasMore;
    };
    while (await readPage());
    seen.clear();
    deliveries.length = 0;

    const last = new Map<string, string>();
    let writing = true;
    const writer = async (w: number) => {
      for (let round = 1; round <= 10; round++) {
        const mine = ids.filter((_, i) => i % 4 === w);
        const hold = (w + round) % 3 === 0 ? 60 : 3;
        // A transaction that takes its stamp early and commits late, beside short ones.
        await server.db.transaction(async (trx) => {
          for (const id of mine) {
            const title = `v${round}-w${w}-${id.slice(0, 4)}`;
            await trx('items').where({ id }).update({ title, updated_at: new Date() });
            last.set(id, title);
          }
          await sleep(hold);
        });
      }
    };
    const reader = (async () => {
      while (writing) {
        await readPage();
        await sleep(2);
      }
    })();
    await Promise.all([0, 1, 2, 3].map(writer));
    writing = false;
    await reader;
    while (await readPage());

    for (const id of ids) expect(seen.get(id)).toBe(last.get(id));
    // No change is handed out twice: each (item, title) pair appears once.
    expect(new Set(deliveries).size).toBe(deliveries.length);
  });
});
