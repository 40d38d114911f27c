import { describe, it, expect, beforeAll } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { create_items } from '../../src/operations/create_items.js';
import { create_list } from '../../src/operations/create_list.js';
import { update_items } from '../../src/operations/update_items.js';
import { get_item } from '../../src/operations/get_item.js';
import { ApiError } from '../../src/core/errors.js';

describe('update_items', () => {
  const { server, ada } = useTestServer();
  let booksId: string;
  beforeAll(async () => {
    booksId = (
      await create_list(server.context(ada), {
        name: 'Books',
        properties: [
          { name: 'Author', type: 'text' },
          { name: 'Pages', type: 'number' },
        ],
      })
    ).id;
  });
  const ctx = () => server.context(ada);
  const task = async (title = 'task', body?: string) =>
    (await create_items(ctx(), { items: [{ title, ...(body !== undefined ? { body } : {}) }] })).items[0]!.id;
  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
    throw new Error('expected a refusal');
  };

  it('sets completedAt on completion and clears it when reopened', async () => {
    const id = await task();
    const done = await update_items(ctx(), { items: [{ itemId: id }], taskStatus: 'completed' });
    expect(done.items[0]!.completedAt).not.toBeNull();
    const reopened = await update_items(ctx(), { items: [{ itemId: id }], taskStatus: 'todo' });
    expect(reopened.items[0]).toMatchObject({ taskStatus: 'todo', completedAt: null });
  });

  it('sets the due date for every item in the call, and `none` clears it', async () => {
    const [a, b] = [await task('a'), await task('b')];
    const set = await update_items(ctx(), { items: [{ itemId: a }, { itemId: b }], dueAt: '2026-12-24T18:00:00Z' });
    expect(set.items.map((i) => i.dueAt)).toEqual(['2026-12-24T18:00:00.000Z', '2026-12-24T18:00:00.000Z']);
    const cleared = await update_items(ctx(), { items: [{ itemId: a }], dueAt: 'none' });
    expect(cleared.items[0]).toMatchObject({ dueAt: null, reminderAt: null });
  });

  it('merges values: only the properties sent change and "" clears one', async () => {
    const id = (await create_items(ctx(), { listId: booksId, items: [{ title: 'Dune', values: { Author: 'Herbert', Pages: 412 } }] })).items[0]!.id;
    const result = await update_items(ctx(), { items: [{ itemId: id, values: { Pages: 500 } }] });
    expect(Object.values(result.items[0]!.values).sort()).toEqual([500, 'Herbert'].sort());
    const cleared = await update_items(ctx(), { items: [{ itemId: id, values: [{ property: 'Author', value: '' }] }] });
    expect(Object.values(cleared.items[0]!.values)).toEqual([500]);
  });

  it('refuses an unknown property naming the valid ones, and names the items written before it', async () => {
    const first = await task('first');
    const book = (await create_items(ctx(), { listId: booksId, items: [{ title: 'X' }] })).items[0]!.id;
    const err = await refusal(
      update_items(ctx(), {
        items: [
          { itemId: first, title: 'first renamed' },
          { itemId: book, values: { Colour: 'red' } },
          { itemId: first, title: 'never' },
        ],
      }),
    );
    expect(err.code).toBe('toolError');
    expect(err.message).toMatch(/unknown property 'Colour'; valid: Author, Pages/);
    expect(err.extra.details).toMatchObject({ writtenItemIds: [first], refusedItemId: book, refusedIndex: 1 });
    expect((await get_item(ctx(), { id: first })).title).toBe('first renamed');
  });

  it.each([
    ['append (default)', undefined, 'Line 1\n\nMore', 'Line 1'],
    ['prepend', 'prepend', 'More\n\nLine 1', 'Line 1'],
    ['insertAfter', 'insertAfter', '# Top\nMore\nend', '# Top\nend'],
  ])('merges a legacy body with mode %s', async (_name, mode, expected, start) => {
    const id = await task('body', start);
    const result = await update_items(ctx(), {
      items: [{ itemId: id, body: 'More' }],
      ...(mode ? { mode: mode as 'prepend' } : {}),
      ...(mode === 'insertAfter' ? { anchor: '# Top' } : {}),
    });
    expect(result.items[0]!.body).toBe(expected);
    expect(result.items[0]!.bodyVersion).toMatch(/\S/);
  });

  it('refuses mode replace without confirmReplace, and an anchor that is not there', async () => {
    const id = await task('r', 'old');
    expect((await refusal(update_items(ctx(), { items: [{ itemId: id, body: 'new' }], mode: 'replace' }))).message).toMatch(/confirmReplace: true/);
    expect((await update_items(ctx(), { items: [{ itemId: id, body: 'new' }], mode: 'replace', confirmReplace: true })).items[0]!.body).toBe('new');
    expect((await refusal(update_items(ctx(), { items: [{ itemId: id, body: 'x' }], mode: 'insertAfter', anchor: 'nowhere' }))).message).toMatch(
      /anchor "nowhere" was not found/,
    );
  });

  it('refuses edits and body together on one item', async () => {
    const id = await task('both', 'a');
    const err = await refusal(update_items(ctx(), { items: [{ itemId: id, body: 'b', edits: [{ op: 'insert', position: 'end', markdown: 'c' }] }] }));
    expect(err.message).toMatch(/either edits .* or body/);
  });

  it('archives, brings back and favorites', async () => {
    const id = await task('flags');
    const archived = await update_items(ctx(), { items: [{ itemId: id }], archived: true, favorited: true });
    expect(archived.items[0]).toMatchObject({ favorited: true, archivedAt: expect.any(String) });
    expect((await update_items(ctx(), { items: [{ itemId: id }], archived: false })).items[0]!.archivedAt).toBeNull();
  });

  it('refuses taskStatus on a list that keeps no status', async () => {
    const book = (await create_items(ctx(), { listId: booksId, items: [{ title: 'Y' }] })).items[0]!.id;
    expect((await refusal(update_items(ctx(), { items: [{ itemId: book }], taskStatus: 'completed' }))).message).toMatch(/keeps no status/);
  });

  it("answers 404 for another account's item, writing nothing", async () => {
    const bea = await server.account('Bea');
    const id = await task('mine');
    const res = await bea.sdk.PATCH('/items', { body: { items: [{ itemId: id, title: 'stolen' }] } });
    expect(res.response.status).toBe(404);
    expect((await get_item(ctx(), { id })).title).toBe('mine');
  });

  it('answers through MCP with an isError result carrying the written ids', async () => {
    const id = await task('m');
    const mcp = await server.mcp(ada);
    const ok = await mcp.callTool({ name: 'update_items', arguments: { items: [{ itemId: id, title: 'm2' }] } });
    expect((ok.structuredContent as { updated: number }).updated).toBe(1);
    const bad = await mcp.callTool({
      name: 'update_items',
      arguments: { items: [{ itemId: id, title: 'm3' }, { itemId: '00000000-0000-4000-8000-000000000000' }] },
    });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0]!.text).toContain(id);
  });

  describe('concurrent calls on one item', () => {
    const handlesOf = (body: string) => [...body.matchAll(/^⟦([a-z0-9]+)⟧ /gm)].map((m) => m[1]!);

    it('block edits from one read, sent at once, all land: none overwrites another', async () => {
      const paragraphs = Array.from({ length: 8 }, (_, i) => `Paragraph ${i}.`);
      const id = await task('shared note', `${paragraphs.join('\n\n')}\n`);
      const read = await get_item(ctx(), { id, forEditing: true });
      const handles = handlesOf(read.body!);
      expect(handles).toHaveLength(8);
      await Promise.all(
        handles.map((handle, i) => update_items(ctx(), { items: [{ itemId: id, edits: [{ op: 'replace', handle, markdown: `Edited ${i}.` }] }] })),
      );
      const after = await get_item(ctx(), { id });
      expect(after.body).toBe(`${paragraphs.map((_, i) => `Edited ${i}.`).join('\n\n')}\n`);
    });

    it('two rewrites pinned to the same version: exactly one is applied', async () => {
      const id = await task('contested', 'original\n');
      const { bodyVersion } = await get_item(ctx(), { id });
      const outcomes = await Promise.allSettled(
        ['first\n', 'second\n', 'third\n'].map((markdown) =>
          update_items(ctx(), { items: [{ itemId: id, edits: [{ op: 'rewrite', baseVersion: bodyVersion!, markdown }] }] }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const winner = (outcomes.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<Awaited<ReturnType<typeof update_items>>>).value.items[0]!;
      expect((await get_item(ctx(), { id })).body).toBe(winner.body);
      for (const o of outcomes.filter((o) => o.status === 'rejected')) expect(((o as PromiseRejectedResult).reason as ApiError).code).toBe('toolError');
    });

    it('new select options added by concurrent calls on one list are all kept', async () => {
      const list = (await create_list(ctx(), { name: 'Colours', properties: [{ name: 'Colour', type: 'select' }] })).id;
      const ids = (await create_items(ctx(), { listId: list, items: Array.from({ length: 6 }, (_, i) => ({ title: `thing ${i}` })) })).items.map((i) => i.id);
      await Promise.all(ids.map((itemId, i) => update_items(ctx(), { items: [{ itemId, values: { Colour: `colour ${i}` } }] })));
      const lists = await server.db('lists').where({ id: list }).first();
      const colour = (lists.properties as { name: string; options?: { label: string }[] }[]).find((p) => p.name === 'Colour')!;
      expect(colour.options!.map((o) => o.label).sort()).toEqual(ids.map((_, i) => `colour ${i}`));
    });
  });
});
