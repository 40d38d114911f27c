/**
 * list_items pages with `hasMore` and an opaque `nextCursor` in every sort, never cutting
 * silently; `scope: workspace` reads every list the person owns, and its changes feed misses
 * and repeats nothing while two writers add items (on a list made meanwhile, too).
 */
import { describe, it, expect, beforeAll } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { useTestServer } from '../support/server.js';
import type { OpInput, OperationContext } from '../../src/core/context.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { list_items } from '../../src/operations/list_items.js';
import { update_items } from '../../src/operations/update_items.js';
import { ApiError } from '../../src/core/errors.js';
import { createClient } from '../../sdk/src/index.js';

describe('list_items paging and the workspace scope', () => {
  const { server, ada } = useTestServer({});
  let listId: string;
  const made: string[] = [];
  beforeAll(async () => {
    listId = (await create_list(server.context(ada), { name: 'Backlog', template: 'tasks' })).id;
    // 500 items: due dates with ties and gaps (every fifth has none), some completed.
    for (let batch = 0; batch < 5; batch++) {
      const items = Array.from({ length: 100 }, (_, i) => {
        const n = batch * 100 + i;
        return { title: `item ${n}`, ...(n % 5 === 0 ? {} : { dueAt: `2026-12-${String((n % 7) + 1).padStart(2, '0')}` }) };
      });
      made.push(...(await create_items(server.context(ada), { listId, items })).items.map((i) => i.id));
    }
    await update_items(server.context(ada), { items: made.filter((_, i) => i % 3 === 0).map((itemId) => ({ itemId })), taskStatus: 'completed' });
  });
  const ctx = () => server.context(ada);

  async function readAll(context: OperationContext, input: OpInput<'list_items'>, between?: () => Promise<void>): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await list_items(context, { ...input, ...(cursor ? { cursor } : {}) });
      pages++;
      ids.push(...page.items.map((i) => i.id));
      expect(page.nextCursor === null).toBe(!page.hasMore);
      if (!page.hasMore) return { ids, pages };
      cursor = page.nextCursor!;
      await between?.();
    }
  }

  it.each(['due', 'created', 'updated', 'completed'] as const)('pages all 500 items sorted by %s, each once, in the order of one long read', async (sort) => {
    const taskStatus = ['todo', 'inProgress', 'completed'] as const;
    const { ids, pages } = await readAll(ctx(), { listId, sort, taskStatus: [...taskStatus], limit: 37 });
    expect(pages).toBe(Math.ceil(500 / 37));
    expect(ids).toHaveLength(500);
    expect(new Set(ids)).toEqual(new Set(made));
    // The same order as an unpaged read (200 at a time is the most one page holds: compare the first 200).
    const whole = await list_items(ctx(), { listId, sort, taskStatus: [...taskStatus], limit: 200 });
    expect(ids.slice(0, 200)).toEqual(whole.items.map((i) => i.id));
    expect(whole.hasMore).toBe(true);
  });

  it('lets the SDK page a filtered read by itself (items.listAll)', async () => {
    const lk = createClient({ baseUrl: server.baseUrl, token: ada.key, throwOnError: true });
    const ids: string[] = [];
    for await (const item of lk.items.listAll({ listId, limit: 40 })) ids.push((item as { id: string }).id);
    expect(ids).toHaveLength(made.filter((_, i) => i % 3 !== 0).length);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('skips and repeats nothing when items are added between pages', async () => {
    const open = made.filter((_, i) => i % 3 !== 0).length;
    let round = 0;
    const { ids } = await readAll(ctx(), { listId, sort: 'created', limit: 25 }, async () => {
      // New items go before the cursor in this order (newest first); they must not shift the pages.
      await create_items(ctx(), { listId, items: [{ title: `late ${round++}` }] });
    });
    const late = ids.filter((id) => !made.includes(id));
    expect(late).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(open);
  });

  it('refuses a cursor that is not one, or that continues another sort', async () => {
    const refusal = async (input: OpInput<'list_items'>) => {
      const err = await list_items(ctx(), input).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      return err as ApiError;
    };
    expect((await refusal({ listId, cursor: 'not-a-cursor' })).toBody()).toMatchObject({ code: 'toolError', field: 'cursor' });
    const next = (await list_items(ctx(), { listId, limit: 5 })).nextCursor!;
    expect((await refusal({ listId, cursor: next, sort: 'updated' })).message).toMatch(/continues another read \(items:due\), not this one \(items:updated\)/);
    const forged = Buffer.from(JSON.stringify({ k: 'items:due', p: ['false', "'; drop table items; --", 'x', '1'] })).toString('base64url');
    expect((await refusal({ listId, cursor: forged })).toBody()).toMatchObject({ code: 'toolError', field: 'cursor' });
    expect((await refusal({ listId, scope: 'workspace' })).toBody()).toMatchObject({ code: 'toolError', field: 'scope' });
  });

  it('reads every list with scope workspace; the default stays the Tasks set', async () => {
    const bea = await server.account('Bea');
    const bctx = server.context(bea);
    const books = (await create_list(bctx, { name: 'Books', properties: [{ name: 'Author', type: 'text' }] })).id;
    await create_items(bctx, { listId: books, items: [{ title: 'Dune' }] });
    await create_items(bctx, { listId: 'notes', items: [{ title: 'A note' }] });
    await create_items(bctx, { items: [{ title: 'A task' }] });
    const titles = async (input: OpInput<'list_items'>) => (await list_items(bctx, input)).items.map((i) => i.title).sort();
    expect(await titles({})).toEqual(['A task']);
    expect(await titles({ scope: 'workspace' })).toEqual(['A note', 'A task', 'Dune']);
    const feed = await list_items(bctx, { scope: 'workspace', changedSince: '2000-01-01T00:00:00Z' });
    expect(feed.items.map((i) => i.title).sort()).toEqual(['A note', 'A task', 'Dune']);
    expect((await list_items(bctx, { changedSince: '2000-01-01T00:00:00Z' })).items.map((i) => i.title)).toEqual(['A task']);
  });

  it('misses and repeats nothing in the workspace feed while two writers add items, one on a list made meanwhile', async () => {
    const cy = await server.account('Cy');
    const cctx = server.context(cy);
    let cursor = (await list_items(cctx, { scope: 'workspace', changedSince: '2000-01-01T00:00:00Z', limit: 200 })).nextChangedSince!;
    const seen: string[] = [];
    const readPage = async () => {
      const page = await list_items(cctx, { scope: 'workspace', changedSince: cursor, limit: 7 });
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextChangedSince!;
      return page.hasMore;
    };
    while (await readPage());
    seen.length = 0;
    const written: string[] = [];
    let writing = true;
    const writer = async (target: () => Promise<string>) => {
      for (let round = 0; round < 12; round++) {
        const items = Array.from({ length: 5 }, (_, i) => ({ title: `r${round}-${i}` }));
        written.push(...(await create_items(cctx, { listId: await target(), items })).items.map((i) => i.id));
        await sleep(3);
      }
    };
    let fresh: Promise<string> | null = null;
    const reader = (async () => {
      while (writing) {
        await readPage();
        await sleep(2);
      }
    })();
    await Promise.all([
      writer(async () => 'notes'),
      writer(async () => {
        fresh ??= create_list(cctx, { name: `Made meanwhile` }).then((l) => l.id);
        return fresh;
      }),
    ]);
    writing = false;
    await reader;
    while (await readPage());
    expect(seen).toHaveLength(written.length);
    expect(new Set(seen)).toEqual(new Set(written));
  });
});
