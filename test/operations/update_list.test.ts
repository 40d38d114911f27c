import { describe, it, expect } from '@jest/globals';
import { useUpdateListFixture, type PropertyInput } from './update-list-fixture.js';
import { create_list } from '../../src/operations/create_list.js';

describe('update_list', () => {
  const { server, ada, bob, update, makeList, addItems, itemsOf, listRow, refusal } = useUpdateListFixture();

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
});
