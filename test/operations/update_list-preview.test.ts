import { describe, it, expect } from '@jest/globals';
import fc from 'fast-check';
import { useUpdateListFixture } from './update-list-fixture.js';
import { create_list } from '../../src/operations/create_list.js';
import type { OpInput } from '../../src/core/context.js';
import type { Property } from '../../src/domain/lists/properties.js';
import type { OwnType, StoredValue } from '../../src/domain/lists/retype.js';
import { validFor } from '../support/retype-cases.js';

describe('update_list: REST, MCP and the loss preview', () => {
  const { server, ada, update, makeList, addItems, itemsOf, listRow } = useUpdateListFixture();

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
