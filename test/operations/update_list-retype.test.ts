import { describe, it, expect } from '@jest/globals';
import { useUpdateListFixture } from './update-list-fixture.js';
import type { OwnType } from '../../src/domain/lists/retype.js';
import { RETYPE_CASES } from '../support/retype-cases.js';

describe('update_list: retypes and deleted properties', () => {
  const { server, ada, update, makeList, addItems, itemsOf, listRow } = useUpdateListFixture();

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
});
