/**
 * Two promises of the changes feed that acceptance checks found broken: the items of a deleted
 * task list come as tombstones (in the Tasks set's feed and in the list's own while it is in
 * the trash), and concurrent writes come one whole write at a time, in the order of their
 * transactions, never interleaved.
 */
import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../../support/server.js';
import { create_items } from '../../../src/operations/create_items.js';
import { create_list } from '../../../src/operations/create_list.js';
import { delete_list } from '../../../src/operations/delete_list.js';
import { list_items } from '../../../src/operations/list_items.js';
import { restore_deleted } from '../../../src/operations/restore_deleted.js';
import { update_items } from '../../../src/operations/update_items.js';
import { sequencePending } from '../../../src/domain/changes/feed.js';
import { purgeExpired } from '../../../src/domain/trash/trash.js';

describe('changes feed: deleted lists and the order of concurrent writes', () => {
  const { server, ada } = useTestServer();
  const ctx = () => server.context(ada);

  /** Every row and tombstone from `cursor` on, in pages of `limit`. */
  async function drain(cursor: string, listId?: string, limit = 50) {
    const rows: string[] = [];
    const tombstones: string[] = [];
    for (;;) {
      const page = await list_items(ctx(), { changedSince: cursor, limit, ...(listId ? { listId } : {}) });
      rows.push(...page.items.map((i) => i.id));
      tombstones.push(...(page.deleted ?? []).map((t) => t.id));
      cursor = page.nextChangedSince!;
      if (!page.hasMore) return { rows, tombstones, cursor };
    }
  }

  it('reports the items of a deleted task list as tombstones, and as rows again once it is restored', async () => {
    const list = await create_list(ctx(), { name: 'Errands', template: 'tasks' } as never);
    const ids = (await create_items(ctx(), { listId: list.id, items: [{ title: 'post office' }, { title: 'bank' }] })).items.map((i) => i.id);
    const before = (await drain('2000-01-01T00:00:00Z')).cursor;
    const ownBefore = (await drain('2000-01-01T00:00:00Z', list.id)).cursor;

    const deleted = await delete_list(ctx(), { id: list.id, confirmDeleteItems: true } as never);
    expect(deleted.itemsDeleted).toBe(2);
    const tasksSet = await drain(before);
    expect(tasksSet.tombstones.sort()).toEqual([...ids].sort());
    const own = await drain(ownBefore, list.id);
    expect(own.tombstones.sort()).toEqual([...ids].sort());

    await restore_deleted(ctx(), { type: 'list', id: list.id });
    const back = await drain(tasksSet.cursor);
    expect(back.rows.sort()).toEqual([...ids].sort());
  });

  it('still answers 404 for a list id that never was', async () => {
    await expect(list_items(ctx(), { changedSince: '2000-01-01T00:00:00Z', listId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({
      code: 'notFound',
    });
  });

  it('answers 404 for a list purged from the trash, as for one that never was, and keeps the Tasks set answering', async () => {
    const list = await create_list(ctx(), { name: 'Short-lived', template: 'tasks' } as never);
    await create_items(ctx(), { listId: list.id, items: [{ title: 'gone soon' }] });
    const cursor = (await drain('2000-01-01T00:00:00Z')).cursor;
    await delete_list(ctx(), { id: list.id, confirmDeleteItems: true } as never);
    expect((await list_items(ctx(), { changedSince: cursor, listId: list.id })).deleted).toHaveLength(1);
    await server
      .db('lists')
      .where({ id: list.id })
      .update({ purges_at: new Date(Date.now() - 1000) });
    await server
      .db('items')
      .where({ list_id: list.id })
      .update({ purges_at: new Date(Date.now() - 1000) });
    expect(await purgeExpired(server.db, new Date())).toMatchObject({ lists: 1 });
    await expect(list_items(ctx(), { changedSince: cursor, listId: list.id })).rejects.toMatchObject({ code: 'notFound' });
    await expect(list_items(ctx(), { listId: list.id })).rejects.toMatchObject({ code: 'notFound' });
    expect((await list_items(ctx(), { changedSince: cursor })).hasMore).toBe(false);
  });

  it('keeps each of two concurrent writes whole and in transaction order (8 runs of 100 and 30 items)', async () => {
    for (let run = 0; run < 8; run++) {
      const start = (await drain('2000-01-01T00:00:00Z')).cursor;
      const [big, small] = await Promise.all([
        create_items(ctx(), { items: Array.from({ length: 100 }, (_, i) => ({ title: `big ${run}.${i}` })) }),
        new Promise((resolve) => setTimeout(resolve, run % 4)).then(() =>
          create_items(ctx(), { items: Array.from({ length: 30 }, (_, i) => ({ title: `small ${run}.${i}` })) }),
        ),
      ]);
      const { rows } = await drain(start);
      const bigIds = big.items.map((i) => i.id);
      const smallIds = small.items.map((i) => i.id);
      expect(rows).toHaveLength(130);
      const order = rows.join(',');
      // One whole write, then the other whole write, each in its own order.
      expect([`${bigIds.join(',')},${smallIds.join(',')}`, `${smallIds.join(',')},${bigIds.join(',')}`]).toContain(order);
    }
  }, 60000);

  it('hands out one write’s changes in the order it wrote them, not the order the items were made', async () => {
    const [x, y, z] = (await create_items(ctx(), { items: [{ title: 'x0' }, { title: 'y0' }, { title: 'z0' }] })).items.map((i) => i.id);
    const start = (await drain('2000-01-01T00:00:00Z')).cursor;
    // update_items writes its entries in the order given.
    await update_items(ctx(), {
      items: [
        { itemId: z!, title: 'z1' },
        { itemId: x!, title: 'x1' },
        { itemId: y!, title: 'y1' },
      ],
    } as never);
    expect((await drain(start)).rows).toEqual([z, x, y]);
  });

  it('orders writes as openapi.yaml states: committed before the same sequencing step, by when they started; committed after a step, after it', async () => {
    const [a, b, c] = (await create_items(ctx(), { items: [{ title: 'a0' }, { title: 'b0' }, { title: 'c0' }] })).items.map((i) => i.id);
    let cursor = (await drain('2000-01-01T00:00:00Z')).cursor;

    // Writer 1 starts first and commits last; no step runs between the two commits.
    const first = await server.db.transaction();
    await first('items').where({ id: a }).update({ title: 'a1' });
    await server.db('items').where({ id: b }).update({ title: 'b1' });
    await first.commit();
    let page = await drain(cursor);
    expect(page.rows).toEqual([a, b]);
    cursor = page.cursor;

    // The same, with a step (any feed read, or the background sequencer) between the commits.
    const early = await server.db.transaction();
    await early('items').where({ id: c }).update({ title: 'c1' });
    await server.db('items').where({ id: a }).update({ title: 'a2' });
    await sequencePending(server.db);
    await early.commit();
    page = await drain(cursor);
    expect(page.rows).toEqual([a, c]);
  });
});
