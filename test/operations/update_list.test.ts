import { describe, it, expect, beforeAll } from '@jest/globals';
import fc from 'fast-check';
import { useTestServer, type TestAccount } from '../support/server.js';
import { create_list } from '../../src/operations/create_list.js';
import { update_list } from '../../src/operations/update_list.js';
import { ApiError } from '../../src/core/errors.js';
import type { OpInput } from '../../src/core/context.js';
import type { Property } from '../../src/domain/properties.js';
import type { OwnType, StoredValue } from '../../src/domain/retype.js';
import { RETYPE_CASES, validFor } from '../support/retype-cases.js';

type PropertyInput = NonNullable<OpInput<'create_list'>['properties']>[number];
/** An item row as stored; `updated_at` in microseconds since the epoch (a Date would round to ms). */
interface ItemRow {
  id: string;
  list_id: string;
  title: string | null;
  values: Record<string, StoredValue>;
  updated_at: number;
  deleted_at: Date | null;
  archived_at: Date | null;
}

describe('update_list', () => {
  const { server, ada } = useTestServer();
  let bob: TestAccount;
  beforeAll(async () => {
    bob = await server.account('Bob');
  });

  const update = (input: OpInput<'update_list'>, who: TestAccount = ada) => update_list(server.context(who), input);
  const makeList = (properties: PropertyInput[], extra: Partial<OpInput<'create_list'>> = {}, who: TestAccount = ada) =>
    create_list(server.context(who), { name: 'Books', properties, ...extra });
  /** Inserts items straight into the store (values keyed by property id, as stored). */
  async function addItems(
    listId: string,
    values: Record<string, StoredValue>[],
    who: TestAccount = ada,
    extra: Record<string, unknown> = {},
  ): Promise<ItemRow[]> {
    if (values.length === 0) return [];
    const rows = (await server
      .db('items')
      .insert(values.map((v, i) => ({ owner_id: who.userId, list_id: listId, title: `Item ${i}`, values: JSON.stringify(v), ...extra })))
      .returning('id')) as { id: string }[];
    const stored = await itemsOf(listId);
    return rows.map((r) => stored.find((i) => i.id === r.id)!);
  }
  const itemsOf = async (listId: string): Promise<ItemRow[]> =>
    (
      (await server
        .db('items')
        .where({ list_id: listId })
        .orderBy('id')
        .select(
          'id',
          'list_id',
          'title',
          'values',
          'deleted_at',
          'archived_at',
          server.db.raw('(extract(epoch from updated_at) * 1000000)::bigint::text AS updated_at'),
        )) as (Omit<ItemRow, 'updated_at'> & { updated_at: string })[]
    ).map((i) => ({ ...i, updated_at: Number(i.updated_at) }));
  const listRow = async (id: string) =>
    (await server.db('lists').where({ id }).first()) as {
      name: string;
      properties: Property[];
      updated_at: Date;
      title_label: string | null;
      icon: string | null;
      instructions: string | null;
      layout: string;
    };
  const refusal = async (attempt: Promise<unknown>) => {
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  };

  describe('list fields', () => {
    it('changes only the fields passed', async () => {
      const list = await makeList([{ name: 'Author', type: 'text' }], { icon: '📚', instructions: 'One per line', titleLabel: 'Book' });
      const out = await update({ id: list.id, name: 'Reading' });
      expect(out).toMatchObject({ name: 'Reading', icon: '📚', instructions: 'One per line', titleLabel: 'Book', layout: 'table', preview: false });
      expect(out).not.toHaveProperty('warning');
      expect(out.properties).toEqual(list.properties);
    });

    it.each([
      ['icon "" removes the icon', { icon: '' }, { icon: null }],
      ['icon null leaves it', { icon: null }, { icon: '📚' }],
      ['instructions replace the rules', { instructions: 'Only hardbacks' }, { instructions: 'Only hardbacks' }],
      ['instructions "" clear them', { instructions: '' }, { instructions: null }],
      ['instructions null leave them', { instructions: null }, { instructions: 'One per line' }],
      ['titleLabel "" resets it to Title', { titleLabel: '' }, { titleLabel: null }],
      ['titleLabel renames the title column', { titleLabel: 'Book title' }, { titleLabel: 'Book title' }],
      ['layout switches the layout', { layout: 'kanban' as const }, { layout: 'kanban' }],
      ['name null leaves it', { name: null }, { name: 'Books' }],
    ])('%s', async (_case, input, expected) => {
      const list = await makeList([{ name: 'Author', type: 'text' }], { icon: '📚', instructions: 'One per line', titleLabel: 'Book' });
      const out = await update({ id: list.id, ...input });
      expect(out).toMatchObject(expected);
      const row = await listRow(list.id);
      expect({ icon: row.icon, instructions: row.instructions, titleLabel: row.title_label, layout: row.layout, name: row.name }).toMatchObject(expected);
    });

    it('leaves one outbox row per live item of a renamed list, for the search index that shows its list name', async () => {
      const list = await makeList([{ name: 'Author', type: 'text' }]);
      const [live, trashed] = await addItems(list.id, [{}, {}]);
      await server.db('items').where({ id: trashed!.id }).update({ deleted_at: new Date() });
      const outbox = async () =>
        ((await server.db('outbox').whereIn('subject_id', [live!.id, trashed!.id]).select('subject_id')) as { subject_id: string }[]).map((r) => r.subject_id);
      await server.db('outbox').whereIn('subject_id', [live!.id, trashed!.id]).delete();
      await update({ id: list.id, icon: '📕' });
      expect(await outbox()).toEqual([]);
      await update({ id: list.id, name: 'Shelf' });
      expect(await outbox()).toEqual([live!.id]);
    });

    it('refuses a blank name and a titleLabel that is a property name', async () => {
      const list = await makeList([{ name: 'Author', type: 'text' }]);
      expect((await refusal(update({ id: list.id, name: '   ' }))).code).toBe('invalid');
      const clash = await refusal(update({ id: list.id, titleLabel: 'author' }));
      expect(clash.code).toBe('toolError');
      expect(clash.message).toMatch(/titleLabel 'author' is the name of the property p_/);
    });

    it('accepts the words tasks and notes as the id', async () => {
      expect(await update({ id: 'tasks', instructions: 'Errands first' })).toMatchObject({ name: 'Tasks', instructions: 'Errands first', role: 'tasks' });
      expect(await update({ id: 'NOTES', icon: '🗒️' })).toMatchObject({ name: 'Notes', icon: '🗒️', role: 'notes' });
    });

    it('answers 404 for a list of another account, and leaves it alone', async () => {
      const bobs = await makeList([{ name: 'Secret', type: 'text' }], {}, bob);
      expect(await refusal(update({ id: bobs.id, name: 'Mine now' }))).toMatchObject({ code: 'notFound', status: 404 });
      const rest = await ada.sdk.PATCH('/lists/{id}', { params: { path: { id: bobs.id } }, body: { name: 'Mine now' } });
      expect(rest.response.status).toBe(404);
      expect((await listRow(bobs.id)).name).toBe('Books');
    });
  });

  describe('adding and ordering properties', () => {
    it('adds properties at the end with stable ids and leaves existing items untouched', async () => {
      const list = await makeList([{ name: 'Author', type: 'text' }]);
      const [item] = await addItems(list.id, [{ [list.properties[0]!.id]: 'Le Guin' }]);
      const out = await update({
        id: list.id,
        addProperties: [
          { name: 'Pages', type: 'number' },
          { name: 'Shelf', type: 'select', options: ['Top', 'Bottom'] },
        ],
      });
      expect(out.properties.map((p) => p.name)).toEqual(['Author', 'Pages', 'Shelf']);
      expect(out.properties[2]!.options!.map((o) => o.label)).toEqual(['Top', 'Bottom']);
      const [after] = await itemsOf(list.id);
      expect(after!.values).toEqual(item!.values);
      expect(after!.updated_at).toEqual(item!.updated_at);
    });

    it.each([
      ['a name already taken', [{ name: 'author', type: 'text' }], /duplicates a property name/],
      ['the title column', [{ name: 'Title', type: 'text' }], /duplicate the title column/],
      ['the title column by its label', [{ name: 'Book', type: 'text' }], /duplicate the title column/],
      [
        'two new properties with one name',
        [
          { name: 'Year', type: 'number' },
          { name: 'YEAR', type: 'text' },
        ],
        /duplicates a property name/,
      ],
    ])('refuses adding %s', async (_case, addProperties, message) => {
      const list = await makeList([{ name: 'Author', type: 'text' }], { titleLabel: 'Book' });
      const error = await refusal(update({ id: list.id, addProperties: addProperties as PropertyInput[] }));
      expect(error.code).toBe('toolError');
      expect(error.message).toMatch(message);
      expect((await listRow(list.id)).properties).toHaveLength(1);
    });

    it('reorders columns when columnOrder names every property once; additions go last', async () => {
      const list = await makeList([
        { name: 'A', type: 'text' },
        { name: 'B', type: 'text' },
        { name: 'C', type: 'text' },
      ]);
      const [a, b, c] = list.properties.map((p) => p.id);
      const out = await update({ id: list.id, columnOrder: [c!, a!, b!], addProperties: [{ name: 'D', type: 'text' }] });
      expect(out.properties.map((p) => p.name)).toEqual(['C', 'A', 'B', 'D']);
      expect((await listRow(list.id)).properties.map((p) => p.name)).toEqual(['C', 'A', 'B', 'D']);
    });

    it('orders the reserved task columns like any other property', async () => {
      const list = await create_list(server.context(ada), { name: 'Chores', template: 'tasks' });
      expect((await update({ id: list.id, columnOrder: ['dueDate', 'status'] })).properties.map((p) => p.id)).toEqual(['dueDate', 'status']);
    });

    it.each([
      ['misses a property', (a: string, _b: string) => [a], /missing p_\w+ \('B'\)/],
      ['names an unknown id', (a: string, b: string) => [a, b, 'p_nothere'], /not a property of this list 'p_nothere'/],
      ['names a property twice', (a: string, b: string) => [a, b, a], /named twice p_/],
      ['names the title column', (a: string, b: string) => ['title', a, b], /title column is always first/],
    ])('refuses a columnOrder that %s, naming what is wrong', async (_case, order, message) => {
      const list = await makeList([
        { name: 'A', type: 'text' },
        { name: 'B', type: 'text' },
      ]);
      const [a, b] = list.properties.map((p) => p.id);
      const error = await refusal(update({ id: list.id, columnOrder: order(a!, b!), name: 'Renamed' }));
      expect(error.code).toBe('toolError');
      expect(error.message).toMatch(message);
      expect(error.message).toContain(JSON.stringify([a, b]));
      expect((await listRow(list.id)).name).toBe('Books');
    });

    it('refuses a columnOrder that still names a property deleted in the same call', async () => {
      const list = await makeList([
        { name: 'A', type: 'text' },
        { name: 'B', type: 'text' },
      ]);
      const [a, b] = list.properties.map((p) => p.id);
      const error = await refusal(update({ id: list.id, columnOrder: [b!, a!], deletePropertyIds: [a!] }));
      expect(error.message).toMatch(/not a property of this list/);
      expect((await update({ id: list.id, columnOrder: [b!], deletePropertyIds: [a!] })).properties.map((p) => p.id)).toEqual([b]);
    });

    it('refuses more than 60 properties', async () => {
      const list = await makeList(Array.from({ length: 40 }, (_, i) => ({ name: `P${i}`, type: 'text' as const })));
      const error = await refusal(update({ id: list.id, addProperties: Array.from({ length: 21 }, (_, i) => ({ name: `Q${i}`, type: 'text' as const })) }));
      expect(error).toMatchObject({ code: 'toolError', message: expect.stringMatching(/would have 61 properties; a list holds at most 60/) });
    });
  });

  describe('renaming, the reserved task columns and the title column', () => {
    it('renames a property without touching its values', async () => {
      const list = await makeList([{ name: 'Author', type: 'text' }]);
      const [item] = await addItems(list.id, [{ [list.properties[0]!.id]: 'Le Guin' }]);
      const out = await update({ id: list.id, updateProperty: { id: list.properties[0]!.id, name: 'Writer' } });
      expect(out.properties).toEqual([{ ...list.properties[0], name: 'Writer' }]);
      expect((await itemsOf(list.id))[0]).toMatchObject({ values: item!.values, updated_at: item!.updated_at });
    });

    it('refuses renaming to a taken name or the title', async () => {
      const list = await makeList([
        { name: 'Author', type: 'text' },
        { name: 'Year', type: 'number' },
      ]);
      expect((await refusal(update({ id: list.id, updateProperty: { id: list.properties[1]!.id, name: 'AUTHOR' } }))).message).toMatch(
        /duplicates the property p_\w+ \('Author'\)/,
      );
      expect((await refusal(update({ id: list.id, updateProperty: { id: list.properties[1]!.id, name: 'Title' } }))).message).toMatch(
        /duplicate the title column/,
      );
    });

    it('renames the reserved status and dueDate columns', async () => {
      const list = await create_list(server.context(ada), { name: 'Chores', template: 'tasks' });
      await update({ id: list.id, updateProperty: { id: 'status', name: 'Stage' } });
      const out = await update({ id: list.id, updateProperty: { id: 'dueDate', name: 'Deadline', type: 'date' } });
      expect(out.properties.map((p) => [p.id, p.name, p.type])).toEqual([
        ['status', 'Stage', 'status'],
        ['dueDate', 'Deadline', 'date'],
      ]);
      expect(out).toMatchObject({ role: 'tasks', statusPropertyId: 'status', dueDatePropertyId: 'dueDate' });
    });

    it.each([
      ['retyping status', { updateProperty: { id: 'status', type: 'select' as const } }, /reserved status task column: it can be renamed, never retyped/],
      ['retyping dueDate', { updateProperty: { id: 'dueDate', type: 'text' as const } }, /reserved dueDate task column: it can be renamed, never retyped/],
      ['re-optioning status', { updateProperty: { id: 'status', options: ['Open', 'Shut'] } }, /options \(todo, inProgress, completed\) are fixed/],
      ['removing status', { deletePropertyIds: ['status'] }, /reserved status task column: it can be renamed, never removed/],
      ['removing dueDate', { deletePropertyIds: ['dueDate'] }, /reserved dueDate task column: it can be renamed, never removed/],
      [
        'changing the title column',
        { updateProperty: { id: 'title', type: 'number' as const } },
        /title column is not a property: rename its heading with titleLabel/,
      ],
      ['removing the title column', { deletePropertyIds: ['Title'] }, /title column is not a property/],
      [
        'changing an unknown property',
        { updateProperty: { id: 'p_nothere', name: 'X' } },
        /'p_nothere' is not a property of list 'Chores'; valid ids: status \('Status'\), dueDate \('Due date'\)/,
      ],
      ['deleting an unknown property', { deletePropertyIds: ['p_nothere'] }, /names 'p_nothere', which is not a property of list 'Chores'; valid ids/],
    ])('refuses %s with toolError and writes nothing', async (_case, input, message) => {
      const list = await create_list(server.context(ada), { name: 'Chores', template: 'tasks' });
      const error = await refusal(update({ id: list.id, name: 'Renamed', ...input }));
      expect(error).toMatchObject({ code: 'toolError', status: 409 });
      expect(error.message).toMatch(message);
      expect(await listRow(list.id)).toMatchObject({ name: 'Chores', properties: list.properties });
    });

    it.each([
      [
        'options on a type without options',
        (id: string) => ({ updateProperty: { id, type: 'number' as const, options: ['1'] } }),
        'toolError',
        /options apply only to select and multiSelect/,
      ],
      [
        'one property both changed and deleted',
        (id: string) => ({ updateProperty: { id, name: 'X' }, deletePropertyIds: [id] }),
        'toolError',
        /both in updateProperty and in deletePropertyIds/,
      ],
      ['a blank new name (the schema refuses it first)', (id: string) => ({ updateProperty: { id, name: '  ' } }), 'invalid', /updateProperty.name is blank/],
    ])('refuses %s', async (_case, input, code, message) => {
      const list = await makeList([{ name: 'Author', type: 'text' }]);
      const error = await refusal(update({ id: list.id, ...input(list.properties[0]!.id) }));
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
    });
  });

  describe('retypes through the operation and the store', () => {
    it.each(RETYPE_CASES)('$from → $to: $value becomes $expected', async ({ from, to, value, expected, lost }) => {
      const isSelect = (t: OwnType) => t === 'select' || t === 'multiSelect';
      const labels = Array.isArray(value) ? value : [String(value)];
      const list = await makeList([
        { name: 'Field', type: from, ...(isSelect(from) ? { options: [...labels, 'Other'] } : {}) },
        { name: 'Other', type: 'text' },
      ]);
      const [field, other] = list.properties;
      const byLabel = (label: string) => field!.options!.find((o) => o.label === label)!.id;
      const stored = from === 'select' ? byLabel(String(value)) : from === 'multiSelect' ? labels.map(byLabel) : value;
      const [before] = await addItems(list.id, [{ [field!.id]: stored, [other!.id]: 'stays' }]);
      const call = { id: list.id, updateProperty: { id: field!.id, type: to } };
      const first = await update(call);
      const losing = expected === 'lost' || Boolean(lost);
      expect(first.preview).toBe(losing);
      if (losing) {
        expect(first.lostValues).toEqual([{ propertyId: field!.id, propertyName: 'Field', items: 1, examples: lost ?? [labels.join(', ')] }]);
        expect(first.properties[0]!.type).toBe(from);
        expect((await itemsOf(list.id))[0]).toMatchObject({ values: before!.values, updated_at: before!.updated_at });
        expect(await update({ ...call, acknowledgeDataLoss: true })).toMatchObject({ preview: false });
      }
      const property = (await listRow(list.id)).properties[0]!;
      expect(property.type).toBe(to);
      const [after] = await itemsOf(list.id);
      expect(after!.values[other!.id]).toBe('stays');
      const got = after!.values[field!.id];
      const asLabels =
        got === undefined || !isSelect(to)
          ? got
          : Array.isArray(got)
            ? got.map((id) => property.options!.find((o) => o.id === id)!.label)
            : property.options!.find((o) => o.id === got)!.label;
      expect(asLabels).toEqual(expected === 'lost' ? undefined : expected);
      // updated_at moves exactly when the stored value changed.
      if (JSON.stringify(got) === JSON.stringify(stored)) expect(after!.updated_at).toEqual(before!.updated_at);
      else expect(after!.updated_at).toBeGreaterThan(before!.updated_at);
    });

    it('applies a lossless retype at once and moves updated_at only on the items it changed', async () => {
      const list = await makeList([{ name: 'Pages', type: 'number' }]);
      const id = list.properties[0]!.id;
      const [withValue, without] = await addItems(list.id, [{ [id]: 12 }, {}]);
      const out = await update({ id: list.id, updateProperty: { id, type: 'text' } });
      expect(out).toMatchObject({ preview: false, properties: [{ id, name: 'Pages', type: 'text' }] });
      const after = await itemsOf(list.id);
      const changed = after.find((i) => i.id === withValue!.id)!;
      expect(changed.values).toEqual({ [id]: '12' });
      expect(changed.updated_at).toBeGreaterThan(withValue!.updated_at);
      expect(after.find((i) => i.id === without!.id)!.updated_at).toEqual(without!.updated_at);
    });

    it('previews a lossy retype, writes nothing, and applies it when acknowledged', async () => {
      const list = await makeList([{ name: 'Pages', type: 'text' }]);
      const id = list.properties[0]!.id;
      await addItems(list.id, [{ [id]: '320' }, { [id]: 'twelve' }, { [id]: 'n/a' }, { [id]: 'twelve' }]);
      const before = await itemsOf(list.id);
      const activity = async () => Number((await server.db('activity').where({ user_id: ada.userId, list_id: list.id }).count({ n: '*' }))[0]!.n);
      const activityBefore = await activity();
      const call = { id: list.id, name: 'Library', updateProperty: { id, type: 'number' as const } };
      const preview = await update(call);
      expect(preview).toMatchObject({
        preview: true,
        name: 'Books',
        properties: list.properties,
        lostValues: [{ propertyId: id, propertyName: 'Pages', items: 3, examples: expect.arrayContaining(['twelve', 'n/a']) }],
      });
      expect(preview.warning).toMatch(
        /^Nothing was written: retyping 'Pages' from text to number loses values in 3 items \(e\.g\. '(twelve|n\/a)', '(twelve|n\/a)'\)\. Repeat the same call with acknowledgeDataLoss: true to apply it\.$/,
      );
      expect(await itemsOf(list.id)).toEqual(before);
      expect(await listRow(list.id)).toMatchObject({ name: 'Books', properties: list.properties });
      expect(await activity()).toBe(activityBefore);

      const applied = await update({ ...call, acknowledgeDataLoss: true });
      expect(applied).toMatchObject({ preview: false, name: 'Library', properties: [{ id, type: 'number' }] });
      expect(applied).not.toHaveProperty('warning');
      expect((await itemsOf(list.id)).map((i) => i.values[id])).toEqual(before.map((i) => (i.values[id] === '320' ? 320 : undefined)));
      expect(await activity()).toBe(activityBefore + 1);
    });

    it('turns texts into options matched by label, keeping the options sent', async () => {
      const list = await makeList([{ name: 'Colour', type: 'text' }]);
      const id = list.properties[0]!.id;
      await addItems(list.id, [{ [id]: 'red' }, { [id]: 'Blue' }, { [id]: ' Blue ' }]);
      const out = await update({ id: list.id, updateProperty: { id, type: 'select', options: ['Red', 'Green'] } });
      expect(out.preview).toBe(false);
      const options = out.properties[0]!.options!;
      expect(options.map((o) => o.label)).toEqual(['Red', 'Green', 'Blue']);
      expect((await itemsOf(list.id)).map((i) => i.values[id]).sort()).toEqual([options[0]!.id, options[2]!.id, options[2]!.id].sort());
    });

    it('re-options a select: options kept by id or label keep their values, a dropped one is previewed and cleared', async () => {
      const list = await makeList([{ name: 'Shelf', type: 'select', options: ['Top', 'Middle', 'Bottom'] }]);
      const shelf = list.properties[0]!;
      const [top, middle, bottom] = shelf.options!;
      await addItems(list.id, [{ [shelf.id]: top!.id }, { [shelf.id]: middle!.id }, { [shelf.id]: bottom!.id }]);
      const call = { id: list.id, updateProperty: { id: shelf.id, options: [{ id: top!.id, label: 'Upper' }, 'middle', 'Floor'] } };
      const preview = await update(call);
      expect(preview).toMatchObject({ preview: true, lostValues: [{ propertyId: shelf.id, items: 1, examples: ['Bottom'] }] });
      expect(preview.warning).toMatch(/^Nothing was written: re-optioning 'Shelf' to 3 options loses values in 1 item \(e.g. 'Bottom'\)/);
      const out = await update({ ...call, acknowledgeDataLoss: true });
      expect(out.properties[0]!.options!.map((o) => [o.id === top!.id, o.id === middle!.id, o.label])).toEqual([
        [true, false, 'Upper'],
        [false, true, 'middle'],
        [false, false, 'Floor'],
      ]);
      expect((await itemsOf(list.id)).map((i) => i.values[shelf.id] ?? null).sort()).toEqual([top!.id, middle!.id, null].sort());
    });

    it('re-options a multiSelect by trimming the dropped options from each item', async () => {
      const list = await makeList([{ name: 'Tags', type: 'multiSelect', options: ['a', 'b', 'c'] }]);
      const tags = list.properties[0]!;
      const [a, b, c] = tags.options!.map((o) => o.id);
      await addItems(list.id, [{ [tags.id]: [a!, b!] }, { [tags.id]: [c!] }, { [tags.id]: [a!] }]);
      const call = { id: list.id, updateProperty: { id: tags.id, options: ['a'] } };
      expect((await update(call)).lostValues).toEqual([{ propertyId: tags.id, propertyName: 'Tags', items: 2, examples: expect.arrayContaining(['b', 'c']) }]);
      await update({ ...call, acknowledgeDataLoss: true });
      expect((await itemsOf(list.id)).map((i) => i.values[tags.id])).toEqual(expect.arrayContaining([[a], [a], undefined]));
    });

    it('migrates archived and trashed items too, and counts them in the preview', async () => {
      const list = await makeList([{ name: 'Year', type: 'text' }]);
      const id = list.properties[0]!.id;
      await addItems(list.id, [{ [id]: 'unknown' }], ada, { archived_at: new Date() });
      await addItems(list.id, [{ [id]: 'later' }], ada, { deleted_at: new Date(), purges_at: new Date(Date.now() + 86400e3) });
      await addItems(list.id, [{ [id]: '1969' }]);
      expect(await update({ id: list.id, updateProperty: { id, type: 'number' } })).toMatchObject({ preview: true, lostValues: [{ items: 2 }] });
      await update({ id: list.id, updateProperty: { id, type: 'number' }, acknowledgeDataLoss: true });
      expect((await itemsOf(list.id)).map((i) => i.values[id]).filter((v) => v !== undefined)).toEqual([1969]);
    });

    it('migrates more items than one batch holds', async () => {
      const list = await makeList([{ name: 'N', type: 'text' }]);
      const id = list.properties[0]!.id;
      await addItems(
        list.id,
        Array.from({ length: 1203 }, (_, i) => ({ [id]: i % 100 === 0 ? `x${i}` : String(i) })),
      );
      expect(await update({ id: list.id, updateProperty: { id, type: 'number' } })).toMatchObject({ preview: true, lostValues: [{ items: 13 }] });
      await update({ id: list.id, updateProperty: { id, type: 'number' }, acknowledgeDataLoss: true });
      const values = (await itemsOf(list.id)).map((i) => i.values[id]);
      expect(values.filter((v) => typeof v === 'number')).toHaveLength(1190);
      expect(values.filter((v) => v === undefined)).toHaveLength(13);
    });
  });

  describe('deleting properties', () => {
    it('deletes a property without values at once', async () => {
      const list = await makeList([
        { name: 'A', type: 'text' },
        { name: 'B', type: 'text' },
      ]);
      const [item] = await addItems(list.id, [{ [list.properties[0]!.id]: 'kept' }]);
      const out = await update({ id: list.id, deletePropertyIds: [list.properties[1]!.id] });
      expect(out).toMatchObject({ preview: false, properties: [list.properties[0]] });
      expect((await itemsOf(list.id))[0]).toMatchObject({ values: item!.values, updated_at: item!.updated_at });
    });

    it('previews deleting properties that hold values, then removes them from every item', async () => {
      const list = await makeList([
        { name: 'A', type: 'text' },
        { name: 'B', type: 'checkbox' },
        { name: 'C', type: 'number' },
      ]);
      const [a, b, c] = list.properties.map((p) => p.id);
      await addItems(list.id, [{ [a!]: 'x', [b!]: false, [c!]: 1 }, { [a!]: 'y' }, { [c!]: 2 }]);
      const call = { id: list.id, deletePropertyIds: [b!, a!] };
      const preview = await update(call);
      expect(preview.lostValues).toEqual([
        { propertyId: b, propertyName: 'B', items: 1, examples: ['false'] },
        { propertyId: a, propertyName: 'A', items: 2, examples: expect.arrayContaining(['x', 'y']) },
      ]);
      expect(preview.warning).toMatch(/deleting 'B' loses values in 1 item \(e.g. 'false'\); deleting 'A' loses values in 2 items/);
      const out = await update({ ...call, acknowledgeDataLoss: true });
      expect(out.properties.map((p) => p.id)).toEqual([c]);
      const values = (await itemsOf(list.id)).map((i) => i.values);
      expect(values).toHaveLength(3);
      expect(values).toEqual(expect.arrayContaining([{ [c!]: 1 }, { [c!]: 2 }, {}]));
    });
  });

  describe('through REST and MCP', () => {
    it('answers the preview and the write through the SDK', async () => {
      const list = await makeList([{ name: 'Pages', type: 'text' }]);
      const id = list.properties[0]!.id;
      await addItems(list.id, [{ [id]: 'many' }]);
      const body = { updateProperty: { id, type: 'number' as const } };
      const preview = await ada.sdk.PATCH('/lists/{id}', { params: { path: { id: list.id } }, body });
      expect(preview.response.status).toBe(200);
      expect(preview.data).toMatchObject({ preview: true, lostValues: [{ propertyName: 'Pages', items: 1, examples: ['many'] }] });
      const applied = await ada.sdk.PATCH('/lists/{id}', { params: { path: { id: list.id } }, body: { ...body, acknowledgeDataLoss: true } });
      expect(applied.data).toMatchObject({ preview: false, properties: [{ id, type: 'number' }] });
    });

    it('renders refusals as {error, code}: 409 for what the list refuses, 400 for what the schema refuses', async () => {
      const list = await create_list(server.context(ada), { name: 'Chores', template: 'tasks' });
      const reserved = await ada.sdk.PATCH('/lists/{id}', { params: { path: { id: list.id } }, body: { deletePropertyIds: ['status'] } });
      expect(reserved.response.status).toBe(409);
      expect(reserved.error).toMatchObject({ code: 'toolError', error: expect.stringMatching(/never removed/) });
      const long = await ada.sdk.PATCH('/lists/{id}', { params: { path: { id: list.id } }, body: { instructions: 'y'.repeat(501) } });
      expect(long.response.status).toBe(400);
      expect(long.error).toMatchObject({ code: 'invalid', error: expect.stringMatching(/instructions/) });
      for (const body of [{ name: '  ' }, { updateProperty: { id: 'status', name: ' ' } }]) {
        const blank = await ada.sdk.PATCH('/lists/{id}', { params: { path: { id: list.id } }, body });
        expect(blank.response.status).toBe(400);
      }
    });

    it('gives the same preview as an MCP tool result, and refusals as isError results', async () => {
      const list = await makeList([{ name: 'Due', type: 'text' }]);
      const id = list.properties[0]!.id;
      await addItems(list.id, [{ [id]: 'soon' }, { [id]: '2026-12-01' }]);
      const mcp = await server.mcp(ada);
      const preview = await mcp.callTool({ name: 'update_list', arguments: { id: list.id, updateProperty: { id, type: 'date' } } });
      expect(preview.isError).toBeFalsy();
      expect(preview.structuredContent).toMatchObject({ preview: true, lostValues: [{ items: 1, examples: ['soon'] }] });
      const applied = await mcp.callTool({ name: 'update_list', arguments: { id: list.id, updateProperty: { id, type: 'date' }, acknowledgeDataLoss: true } });
      expect(applied.structuredContent).toMatchObject({ preview: false, properties: [{ id, type: 'date' }] });
      const refused = await mcp.callTool({ name: 'update_list', arguments: { id: list.id, columnOrder: [] } });
      expect(refused.isError).toBe(true);
      expect((refused.content as { text: string }[])[0]!.text).toMatch(/columnOrder must name every property/);
    });
  });

  describe('property: the preview names exactly what the acknowledged call drops, and nothing else changes', () => {
    const TYPES: OwnType[] = ['text', 'number', 'select', 'multiSelect', 'date', 'checkbox', 'url', 'email'];
    const LABELS = ['Red', 'green', '42', 'yes', '2026-01-02', 'https://a.example', 'a@b.example'];
    const isSelect = (t: string) => t === 'select' || t === 'multiSelect';
    const valueFor = (type: OwnType, options: { id: string }[]): fc.Arbitrary<StoredValue> => {
      switch (type) {
        case 'text':
          return fc.oneof(
            fc.string({ minLength: 1, maxLength: 12 }),
            fc.constantFrom('12', '1,5', 'yes', 'no', '2026-03-04', 'https://x.example', 'q@r.example', 'Red, blue', ' '),
          );
        case 'number':
          return fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
        case 'checkbox':
          return fc.boolean();
        case 'date':
          return fc.constantFrom('2026-01-02', '2026-12-01T09:30:00.000Z', '1999-12-31');
        case 'url':
          return fc.constantFrom('https://a.example', 'http://u@h.example', 'ftp://files.example/x');
        case 'email':
          return fc.constantFrom('a@b.example', 'z@y.example');
        case 'select':
          return fc.constantFrom(...options.map((o) => o.id));
        case 'multiSelect':
          return fc.uniqueArray(fc.constantFrom(...options.map((o) => o.id)), { minLength: 1, maxLength: 3 });
      }
    };
    const scenario = fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 4 }).chain((types) =>
      fc.record({
        types: fc.constant(types),
        options: fc.constant(types.map(() => LABELS)),
        // which property changes, to what type, with which options, and which ones are deleted
        target: fc.nat({ max: types.length - 1 }),
        toType: fc.option(fc.constantFrom(...TYPES), { nil: undefined }),
        reoption: fc.option(fc.subarray(LABELS.concat(['New', 'RED'])), { nil: undefined }),
        deletes: fc.subarray(types.map((_, i) => i)),
        itemCount: fc.nat({ max: 6 }),
        seed: fc.integer(),
      }),
    );

    it('holds for random lists, values and property changes', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const list = await makeList(s.types.map((type, i) => ({ name: `P${i}`, type, ...(isSelect(type) ? { options: s.options[i] } : {}) })));
          const props = list.properties as Property[];
          const itemValues = fc.sample(fc.tuple(...props.map((p) => fc.option(valueFor(p.type as OwnType, p.options ?? []), { nil: undefined }))), {
            numRuns: s.itemCount,
            seed: s.seed,
          });
          await addItems(
            list.id,
            itemValues.map((vals) => Object.fromEntries(props.flatMap((p, i) => (vals[i] === undefined ? [] : [[p.id, vals[i]!]])))),
          );
          const other = await makeList([{ name: 'Elsewhere', type: 'text' }]);
          await addItems(other.id, [{ [other.properties[0]!.id]: 'untouched' }]);
          const otherBefore = await itemsOf(other.id);

          const target = props[s.target]!;
          const toType = s.toType ?? (target.type as OwnType);
          const deletes = s.deletes.filter((i) => i !== s.target).map((i) => props[i]!.id);
          const call: OpInput<'update_list'> = {
            id: list.id,
            updateProperty: { id: target.id, ...(s.toType ? { type: s.toType } : {}), ...(s.reoption && isSelect(toType) ? { options: s.reoption } : {}) },
            ...(deletes.length ? { deletePropertyIds: deletes } : {}),
          };
          const before = await itemsOf(list.id);
          const listBefore = await listRow(list.id);

          const first = await update(call);
          let predicted = new Map<string, number>();
          if (first.preview) {
            // A preview writes nothing.
            expect(await itemsOf(list.id)).toEqual(before);
            expect(await listRow(list.id)).toEqual(listBefore);
            predicted = new Map(first.lostValues!.map((l) => [l.propertyId, l.items]));
            expect([...predicted.values()].every((n) => n > 0)).toBe(true);
            const second = await update({ ...call, acknowledgeDataLoss: true });
            expect(second.preview).toBe(false);
          }
          const after = await itemsOf(list.id);
          const listAfter = await listRow(list.id);
          const newProps = listAfter.properties;

          // What was really dropped: a value gone, or (from a multiSelect) fewer options than before.
          const dropped = new Map<string, number>();
          const labelCount = (_p: Property, v: StoredValue | undefined) => (v === undefined ? 0 : Array.isArray(v) ? new Set(v).size : 1);
          for (const old of before) {
            const now = after.find((i) => i.id === old.id)!;
            let changed = false;
            for (const p of props) {
              const was = old.values[p.id];
              const is = now.values[p.id];
              if (JSON.stringify(was) !== JSON.stringify(is)) changed = true;
              if (was === undefined) continue;
              const lostHere =
                is === undefined || (p.type === 'multiSelect' && isSelect(newProps.find((q) => q.id === p.id)!.type) && labelCount(p, is) < labelCount(p, was));
              if (lostHere) dropped.set(p.id, (dropped.get(p.id) ?? 0) + 1);
            }
            // Nothing else changes: title, untouched properties, and updated_at only where values changed.
            expect(now.title).toBe(old.title);
            for (const p of props) if (p.id !== target.id && !deletes.includes(p.id)) expect(now.values[p.id]).toEqual(old.values[p.id]);
            if (changed) expect(now.updated_at).toBeGreaterThan(old.updated_at);
            else expect(now.updated_at).toEqual(old.updated_at);
          }
          expect(Object.fromEntries(dropped)).toEqual(Object.fromEntries(predicted));

          // The list as written: the target retyped, deletions gone, the rest as it was; every value valid.
          expect(newProps.map((p) => p.id)).toEqual(props.filter((p) => !deletes.includes(p.id)).map((p) => p.id));
          for (const p of newProps) if (p.id !== target.id) expect(p).toEqual(props.find((q) => q.id === p.id));
          const newTarget = newProps.find((p) => p.id === target.id)!;
          expect(newTarget.type).toBe(toType);
          for (const item of after) {
            expect(Object.keys(item.values).every((k) => newProps.some((p) => p.id === k))).toBe(true);
            const v = item.values[target.id];
            if (v !== undefined) expect(validFor(newTarget, v)).toBe(true);
          }
          expect(await itemsOf(other.id)).toEqual(otherBefore);
        }),
        { numRuns: 60 },
      );
    });
  });
});
