import { describe, it, expect } from '@jest/globals';
import { matchProperties, moveValues } from '../../../src/domain/items/move-values.js';
import { taskColumns, type Property } from '../../../src/domain/lists/properties.js';

const p = (id: string, name: string, type: Property['type'], options?: string[]): Property => ({
  id,
  name,
  type,
  ...(options ? { options: options.map((label, i) => ({ id: `${id}_o${i}`, label })) } : {}),
});

describe('matchProperties', () => {
  it.each([
    ['the same id and type', [p('p1', 'A', 'text')], [p('p1', 'Other', 'text')], { p1: 'p1' }],
    ['the same name in any case and the same type', [p('p1', 'Author', 'text')], [p('q1', 'AUTHOR', 'text')], { p1: 'q1' }],
    ['nothing for the same name and another type', [p('p1', 'Pages', 'text')], [p('q1', 'Pages', 'number')], {}],
    ['nothing for select against multiSelect', [p('p1', 'Tags', 'select', ['a'])], [p('q1', 'Tags', 'multiSelect', ['a'])], {}],
    ['one source property per destination property, ids first', [p('p1', 'X', 'text'), p('p2', 'Y', 'text')], [p('p1', 'Y', 'text')], { p1: 'p1' }],
    ['never the reserved task columns', taskColumns(), taskColumns(), {}],
  ])('matches by %s', (_case, source, destination, expected) => {
    const got = Object.fromEntries([...matchProperties(source, destination)].map(([s, d]) => [s, d.id]));
    expect(got).toEqual(expected);
  });
});

describe('moveValues', () => {
  it('carries matched values, maps select labels to the destination options and makes missing labels options', () => {
    const source = [
      p('p1', 'Author', 'text'),
      p('p2', 'Genre', 'select', ['Poetry', 'Drama']),
      p('p3', 'Tags', 'multiSelect', ['old', 'new']),
      p('p4', 'Pages', 'number'),
    ];
    const destination = [p('q1', 'author', 'text'), p('q2', 'Genre', 'select', ['drama']), p('q3', 'Tags', 'multiSelect', ['NEW'])];
    const matches = matchProperties(source, destination);
    const dramatic = moveValues({ p1: 'Homer', p2: 'p2_o1', p3: ['p3_o0', 'p3_o1'], p4: 300 }, source, matches);
    expect(dramatic.values).toEqual({ q1: 'Homer', q2: 'q2_o0', q3: [expect.stringMatching(/^o_/), 'q3_o0'] });
    expect(destination[2]!.options!.map((o) => o.label)).toEqual(['NEW', 'old']);
    expect(dramatic.dropped).toEqual([{ property: 'Pages', value: 300 }]);
    const poetic = moveValues({ p2: 'p2_o0' }, source, matches);
    expect(destination[1]!.options!.map((o) => o.label)).toEqual(['drama', 'Poetry']);
    expect(poetic).toEqual({ values: { q2: destination[1]!.options![1]!.id }, dropped: [] });
  });

  it('shows a dropped select value by its labels and ignores empty values and keys of no property', () => {
    const source = [p('p1', 'Tags', 'multiSelect', ['a', 'b']), p('p2', 'Note', 'text')];
    expect(moveValues({ p1: ['p1_o0', 'p1_o1'], p2: '', stray: 'x' }, source, new Map())).toEqual({
      values: {},
      dropped: [{ property: 'Tags', value: ['a', 'b'] }],
    });
  });
});
