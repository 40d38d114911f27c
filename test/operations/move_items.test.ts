import { describe, it, expect, beforeAll } from '@jest/globals';
import fc from 'fast-check';
import { useTestServer, type TestAccount } from '../support/server.js';
import { create_list } from '../../src/operations/create_list.js';
import { create_items } from '../../src/operations/create_items.js';
import { move_items } from '../../src/operations/move_items.js';
import { get_item } from '../../src/operations/get_item.js';
import { list_items } from '../../src/operations/list_items.js';
import { delete_items } from '../../src/operations/delete_items.js';
import { ApiError } from '../../src/core/errors.js';
import { conversionText, type OwnType, type StoredValue } from '../../src/domain/lists/retype.js';
import type { Property } from '../../src/domain/lists/properties.js';
import type { OpInput } from '../../src/core/context.js';

type PropertyInput = NonNullable<OpInput<'create_list'>['properties']>[number];
type Entry = OpInput<'create_items'>['items'][number];
interface Row {
  id: string;
  list_id: string;
  title: string | null;
  body: string | null;
  task_status: string | null;
  due_at: Date | null;
  values: Record<string, StoredValue>;
  created_at: Date;
  updated_at: number;
}

describe('move_items', () => {
  const { server, ada } = useTestServer();
  let bob: TestAccount;
  beforeAll(async () => {
    bob = await server.account('Bob');
  });

  const ctx = (who: TestAccount = ada) => server.context(who);
  const move = (input: OpInput<'move_items'>, who: TestAccount = ada) => move_items(ctx(who), input);
  const makeList = (name: string, properties: PropertyInput[], who: TestAccount = ada) => create_list(ctx(who), { name, properties });
  async function add(listId: string, items: Entry[], who: TestAccount = ada): Promise<string[]> {
    const made = await create_items(ctx(who), { listId, items });
    expect(made.failed).toEqual([]);
    return made.items.map((i) => i.id);
  }
  /** Item rows as stored; updated_at in microseconds since the epoch (a Date would round to ms). */
  const rows = async (ids: string[]): Promise<Row[]> =>
    (await server
      .db('items')
      .whereIn('id', ids)
      .orderBy('id')
      .select(
        'id',
        'list_id',
        'title',
        'body',
        'task_status',
        'due_at',
        'values',
        'created_at',
        server.db.raw('(extract(epoch from updated_at) * 1000000)::bigint::float8 AS updated_at'),
      )) as Row[];
  const properties = async (listId: string) => ((await server.db('lists').where({ id: listId }).first()) as { properties: Property[] }).properties;

  it('moves items keeping id, title, body, chat, history and task columns; values follow by name and type, selects by label', async () => {
    const from = await makeList('Reading', [
      { name: 'Author', type: 'text' },
      { name: 'Genre', type: 'select', options: ['Poetry', 'Drama'] },
      { name: 'Tags', type: 'multiSelect', options: ['old', 'new'] },
    ]);
    const to = await makeList('Library', [
      { name: 'author', type: 'text' },
      { name: 'Genre', type: 'select', options: ['drama'] },
      { name: 'Tags', type: 'multiSelect', options: ['NEW'] },
      { name: 'Shelf', type: 'text' },
    ]);
    const [iliad, medea] = await add(from.id, [
      { title: 'Iliad', body: '# Iliad\n\nRage.', values: { Author: 'Homer', Genre: 'Poetry', Tags: ['old', 'new'] } },
      { title: 'Medea', values: { Author: 'Euripides', Genre: 'Drama' } },
    ]);
    await server
      .db('chat_messages')
      .insert({ item_id: iliad, session_id: '00000000-0000-4000-8000-000000000001', author_kind: 'agent', author_name: 'Scout', text: 'Read it' });
    const before = await rows([iliad!, medea!]);

    const out = await move({ itemIds: [iliad!, medea!], listId: to.id });
    expect(out).toMatchObject({ preview: false, listId: to.id, listName: 'Library', droppedValues: [], refused: [] });
    expect(out.items.map((i) => [i.id, i.listId, i.title])).toEqual([
      [iliad, to.id, 'Iliad'],
      [medea, to.id, 'Medea'],
    ]);

    const genre = (await properties(to.id)).find((p) => p.name === 'Genre')!;
    const tags = (await properties(to.id)).find((p) => p.name === 'Tags')!;
    expect(genre.options!.map((o) => o.label)).toEqual(['drama', 'Poetry']);
    expect(tags.options!.map((o) => o.label)).toEqual(['NEW', 'old']);
    const item = await get_item(ctx(), { id: iliad! });
    expect(item).toMatchObject({
      id: iliad,
      title: 'Iliad',
      body: '# Iliad\n\nRage.',
      listName: 'Library',
      cells: { author: 'Homer', Genre: 'Poetry', Tags: 'old, NEW' },
    });
    expect((await get_item(ctx(), { id: medea! })).cells).toEqual({ author: 'Euripides', Genre: 'drama' });
    expect(Number((await server.db('chat_messages').where({ item_id: iliad }).count({ n: '*' }))[0]!.n)).toBe(1);
    const after = await rows([iliad!, medea!]);
    for (const [i, row] of after.entries()) {
      expect(row).toMatchObject({ title: before[i]!.title, body: before[i]!.body, created_at: before[i]!.created_at, task_status: before[i]!.task_status });
      expect(row.updated_at > before[i]!.updated_at).toBe(true);
    }
  });

  it('previews dropped values and moves nothing, then moves and drops them when acknowledged', async () => {
    const from = await makeList('Films', [
      { name: 'Year', type: 'number' },
      { name: 'Mood', type: 'multiSelect', options: ['dark', 'warm'] },
      { name: 'Note', type: 'text' },
    ]);
    const to = await makeList('Watched', [
      { name: 'Year', type: 'text' },
      { name: 'Note', type: 'text' },
    ]);
    const [heat, up] = await add(from.id, [
      { title: 'Heat', values: { Year: 1995, Mood: ['dark'], Note: 'long' } },
      { title: 'Up', values: { Note: 'short' } },
    ]);
    const before = await rows([heat!, up!]);
    const toBefore = await properties(to.id);

    const call = { itemIds: [heat!, up!], listId: to.id };
    const preview = await move(call);
    expect(preview).toEqual({
      preview: true,
      listId: to.id,
      listName: 'Watched',
      items: [],
      droppedValues: [
        { itemId: heat, property: 'Year', value: 1995 },
        { itemId: heat, property: 'Mood', value: ['dark'] },
      ],
      refused: [],
    });
    expect(await rows([heat!, up!])).toEqual(before);
    expect(await properties(to.id)).toEqual(toBefore);

    const moved = await move({ ...call, acknowledgeDataLoss: true });
    expect(moved).toMatchObject({ preview: false, droppedValues: preview.droppedValues });
    const note = toBefore.find((p) => p.name === 'Note')!.id;
    expect(moved.items.map((i) => i.values)).toEqual([{ [note]: 'long' }, { [note]: 'short' }]);
  });

  it('lets status and due date ride along unseen onto a list that keeps neither and shows them again on return', async () => {
    const [task] = await add('tasks', [{ title: 'Renew passport', taskStatus: 'inProgress', dueAt: '2026-12-01T09:00:00Z' }]);
    const moved = await move({ itemIds: [task!], listId: 'notes' });
    expect(moved).toMatchObject({ preview: false, listName: 'Notes', droppedValues: [] });
    expect(moved.items[0]).toMatchObject({ taskStatus: null, dueAt: null, completedAt: null });
    expect(await get_item(ctx(), { id: task! })).toMatchObject({ taskStatus: null, dueAt: null, listName: 'Notes' });
    expect((await list_items(ctx(), { listId: 'notes' })).items.find((i) => i.id === task)).toMatchObject({ taskStatus: null, dueAt: null });
    expect((await rows([task!]))[0]).toMatchObject({ task_status: 'inProgress', due_at: new Date('2026-12-01T09:00:00Z') });

    const back = await move({ itemIds: [task!], listId: 'tasks' });
    expect(back.items[0]).toMatchObject({ taskStatus: 'inProgress', dueAt: '2026-12-01T09:00:00.000Z' });
    expect(await get_item(ctx(), { id: task! })).toMatchObject({ taskStatus: 'inProgress', dueAt: '2026-12-01T09:00:00.000Z', listName: 'Tasks' });
  });

  it('refuses ids that are not the caller’s own live items, and moves the rest', async () => {
    const to = await makeList('Target', []);
    const [mine, trashed] = await add('notes', [{ title: 'mine' }, { title: 'trashed' }]);
    await delete_items(ctx(), { itemIds: [trashed!] });
    const [bobs, sharedWithAda] = await add('notes', [{ title: 'bob' }, { title: 'shared' }], bob);
    await server.db('shares').insert({ owner_id: bob.userId, recipient_id: ada.userId, item_id: sharedWithAda });
    const unknown = '00000000-0000-4000-8000-00000000abcd';
    const out = await move({ itemIds: [bobs!, mine!, 'not-a-uuid', trashed!, unknown, sharedWithAda!, mine!], listId: to.id });
    expect(out.refused).toEqual([bobs, 'not-a-uuid', trashed, unknown, sharedWithAda]);
    expect(out.items.map((i) => i.id)).toEqual([mine]);
    const untouched = await rows([bobs!, sharedWithAda!, trashed!]);
    expect(untouched.every((r) => r.list_id !== to.id)).toBe(true);
  });

  it('answers 404 for a destination of another account, and moves nothing', async () => {
    const [mine] = await add('notes', [{ title: 'stay' }]);
    const bobs = await makeList('Bob’s', [], bob);
    const error = await move({ itemIds: [mine!], listId: bobs.id }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'notFound', status: 404 });
    const rest = await ada.sdk.POST('/items/move', { body: { itemIds: [mine!], listId: bobs.id } });
    expect(rest.response.status).toBe(404);
    expect((await rows([mine!]))[0]!.list_id).not.toBe(bobs.id);
  });

  it('leaves items already on the destination as they are', async () => {
    const list = await makeList('Here', [{ name: 'A', type: 'text' }]);
    const [item] = await add(list.id, [{ title: 'x', values: { A: 'a' } }]);
    const before = await rows([item!]);
    expect(await move({ itemIds: [item!], listId: list.id })).toMatchObject({
      preview: false,
      droppedValues: [],
      items: [{ id: item, values: before[0]!.values }],
    });
    expect(await rows([item!])).toEqual(before);
  });

  it('moves items from several lists in one call', async () => {
    const a = await makeList('A', [{ name: 'Score', type: 'number' }]);
    const b = await makeList('B', [{ name: 'score', type: 'number' }]);
    const to = await makeList('C', [{ name: 'SCORE', type: 'number' }]);
    const [x] = await add(a.id, [{ title: 'x', values: { Score: 1 } }]);
    const [y] = await add(b.id, [{ title: 'y', values: { score: 2 } }]);
    const out = await move({ itemIds: [y!, x!], listId: to.id });
    expect(out.items.map((i) => [i.title, Object.values(i.values)])).toEqual([
      ['y', [2]],
      ['x', [1]],
    ]);
  });

  it('works through REST and MCP, and answers 400 for more than 100 ids', async () => {
    const from = await makeList('Src', [{ name: 'Only here', type: 'text' }]);
    const to = await makeList('Dst', []);
    const [item] = await add(from.id, [{ title: 'x', values: { 'Only here': 'gone' } }]);
    const preview = await ada.sdk.POST('/items/move', { body: { itemIds: [item!], listId: to.id } });
    expect(preview.response.status).toBe(200);
    expect(preview.data).toMatchObject({ preview: true, droppedValues: [{ itemId: item, property: 'Only here', value: 'gone' }] });
    const mcp = await server.mcp(ada);
    const moved = await mcp.callTool({ name: 'move_items', arguments: { itemIds: [item!], listId: to.id, acknowledgeDataLoss: true } });
    expect(moved.isError).toBeFalsy();
    expect(moved.structuredContent).toMatchObject({ preview: false, listId: to.id, items: [{ id: item, listId: to.id, values: {} }] });
    const many = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    expect((await ada.sdk.POST('/items/move', { body: { itemIds: many, listId: to.id } })).response.status).toBe(400);
    expect((await mcp.callTool({ name: 'move_items', arguments: { itemIds: [], listId: to.id } })).isError).toBe(true);
  });

  describe('property: the preview names exactly the values the acknowledged move drops, and nothing else changes', () => {
    const NAMES = ['Author', 'Year', 'Tags', 'Kind'];
    const TYPES: OwnType[] = ['text', 'number', 'select', 'multiSelect', 'checkbox'];
    const LABELS = ['a', 'B', 'c'];
    const isSelect = (t: string) => t === 'select' || t === 'multiSelect';
    const propsArb = fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(...TYPES), fc.subarray(LABELS, { minLength: 1 }), fc.boolean()), {
      selector: ([n]) => n,
      maxLength: 4,
    });
    const toInput = ([name, type, options, upper]: [string, OwnType, string[], boolean]): PropertyInput => ({
      name: upper ? name.toUpperCase() : name,
      type,
      ...(isSelect(type) ? { options: upper ? options.map((o) => o.toUpperCase()) : options } : {}),
    });
    const valueFor = (p: Property): fc.Arbitrary<unknown> => {
      const labels = (p.options ?? []).map((o) => o.label);
      switch (p.type) {
        case 'number':
          return fc.integer({ min: -9, max: 9 });
        case 'checkbox':
          return fc.boolean();
        case 'select':
          return fc.constantFrom(...labels);
        case 'multiSelect':
          return fc.uniqueArray(fc.constantFrom(...labels), { minLength: 1 });
        default:
          return fc.string({ minLength: 1, maxLength: 6 }).filter((s) => s.trim() !== '');
      }
    };
    const texts = (props: Property[], values: Record<string, StoredValue>) =>
      props.flatMap((p) => (values[p.id] === undefined ? [] : [conversionText(values[p.id]!, p).toLowerCase()])).sort();

    it('holds for random lists, values and moves', async () => {
      await fc.assert(
        fc.asyncProperty(propsArb, propsArb, propsArb, fc.integer(), fc.boolean(), async (srcA, srcB, dst, seed, task) => {
          const a = await makeList('A', srcA.map(toInput));
          const b = await makeList('B', srcB.map(toInput));
          const to = await makeList('D', dst.map(toInput));
          const ids: string[] = [];
          for (const list of [a, b]) {
            const props = list.properties as Property[];
            const entries = fc.sample(fc.tuple(...props.map((p) => fc.option(valueFor(p), { nil: undefined }))), { numRuns: 3, seed: seed + ids.length });
            ids.push(
              ...(await add(
                list.id,
                entries.map((vals, i) => ({
                  title: `t${i}`,
                  values: Object.fromEntries(props.flatMap((p, j) => (vals[j] === undefined ? [] : [[p.id, vals[j]]]))) as never,
                })),
              )),
            );
          }
          if (task) ids.push(...(await add('tasks', [{ title: 'task', taskStatus: 'completed' }])));
          const sourceProps = new Map([
            [a.id, a.properties as Property[]],
            [b.id, b.properties as Property[]],
          ]);
          const before = await rows(ids);
          const destBefore = await properties(to.id);

          const call = { itemIds: ids, listId: to.id };
          const first = await move(call);
          if (first.preview) {
            expect(await rows(ids)).toEqual(before);
            expect(await properties(to.id)).toEqual(destBefore);
            const second = await move({ ...call, acknowledgeDataLoss: true });
            expect(second.droppedValues).toEqual(first.droppedValues);
          }
          expect(first.droppedValues.every((d) => ids.includes(d.itemId))).toBe(true);
          const after = await rows(ids);
          const destAfter = await properties(to.id);
          for (const old of before) {
            const now = after.find((r) => r.id === old.id)!;
            expect(now).toMatchObject({
              list_id: to.id,
              title: old.title,
              body: old.body,
              task_status: old.task_status,
              due_at: old.due_at,
              created_at: old.created_at,
            });
            expect(now.updated_at > old.updated_at).toBe(true);
            // Exactly the previewed values are gone; every other value is there, by its text.
            const was = texts(sourceProps.get(old.list_id) ?? [], old.values);
            const is = texts(destAfter, now.values);
            const dropped = first.droppedValues
              .filter((d) => d.itemId === old.id)
              .map((d) => (Array.isArray(d.value) ? d.value.join(', ') : String(d.value)).toLowerCase());
            expect([...is, ...dropped].sort()).toEqual(was);
            expect(Object.keys(now.values).every((k) => destAfter.some((p) => p.id === k))).toBe(true);
          }
          // The destination only gained options, never lost or renamed one.
          expect(destAfter.map((p) => ({ ...p, options: p.options?.slice(0, destBefore.find((q) => q.id === p.id)!.options?.length ?? 0) }))).toEqual(
            destBefore.map((p) => ({ ...p, options: p.options })),
          );
        }),
        { numRuns: 40 },
      );
    });
  });
});
