import { describe, it, expect } from '@jest/globals';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse } from 'yaml';
import { describeRetypes, OWN_TYPES, RETYPE_MATRIX, ValueMigration, type OwnType, type StoredValue } from '../../../src/domain/lists/retype.js';
import type { Property, PropertyOption } from '../../../src/domain/lists/properties.js';
import { RETYPE_CASES, validFor } from '../../support/retype-cases.js';

const isSelect = (t: OwnType) => t === 'select' || t === 'multiSelect';
const pairs = OWN_TYPES.flatMap((from) => OWN_TYPES.filter((to) => to !== from).map((to) => [from, to] as const));

/** The source property for a value written with labels, and the value as stored (option ids). */
function source(type: OwnType, value: StoredValue): { property: Property & { type: OwnType }; stored: StoredValue } {
  if (!isSelect(type)) return { property: { id: 'p_x', name: 'X', type }, stored: value };
  const labels = Array.isArray(value) ? value : [String(value)];
  const options: PropertyOption[] = [...labels, 'Other'].map((label, i) => ({ id: `o_${i}`, label }));
  const stored = type === 'select' ? 'o_0' : labels.map((_, i) => `o_${i}`);
  return { property: { id: 'p_x', name: 'X', type, options }, stored };
}

/** The target property as update_list makes it for a retype without `options`. */
function target(from: Property & { type: OwnType }, to: OwnType): Property & { type: OwnType } {
  if (!isSelect(to)) return { id: from.id, name: from.name, type: to };
  return { id: from.id, name: from.name, type: to, options: isSelect(from.type) ? from.options!.map((o) => ({ ...o })) : [] };
}

function labels(property: Property, value: StoredValue | undefined): StoredValue | undefined {
  if (value === undefined || !isSelect(property.type as OwnType)) return value;
  const label = (id: string) => property.options!.find((o) => o.id === id)!.label;
  return Array.isArray(value) ? value.map(label) : label(String(value));
}

describe('the retype matrix', () => {
  it('has one rule for every pair of own property types', () => {
    for (const from of OWN_TYPES)
      for (const to of OWN_TYPES)
        expect(RETYPE_MATRIX[from][to]).toMatchObject({ outcome: expect.stringMatching(/^(keeps|converts|partly|lost)$/), how: expect.any(String) });
  });

  it('is described in update_list’s description word for word', () => {
    const spec = parse(readFileSync('openapi/openapi.yaml', 'utf8')) as { paths: Record<string, Record<string, { description: string }>> };
    const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
    expect(squash(spec.paths['/lists/{id}']!.patch!.description)).toContain(squash(describeRetypes()));
  });

  it('has a worked example for every retype, and one kept and one lost for every partly rule', () => {
    for (const [from, to] of pairs) {
      const cases = RETYPE_CASES.filter((x) => x.from === from && x.to === to);
      expect({ from, to, hasCase: cases.length > 0 }).toEqual({ from, to, hasCase: true });
      if (RETYPE_MATRIX[from][to].outcome === 'partly') {
        expect({ from, to, kept: cases.some((x) => x.expected !== 'lost'), lost: cases.some((x) => x.expected === 'lost' || x.lost) }).toEqual({
          from,
          to,
          kept: true,
          lost: true,
        });
      }
    }
  });

  it.each(RETYPE_CASES)('$from → $to: $value becomes $expected', ({ from, to, value, expected, lost }) => {
    const { property, stored } = source(from, value);
    const after = target(property, to);
    const result = new ValueMigration(property, after).migrate(stored);
    if (expected === 'lost') {
      expect(result.value).toBeUndefined();
      expect(result.lost).toEqual([Array.isArray(value) ? value.join(', ') : String(value)]);
    } else {
      expect(labels(after, result.value)).toEqual(expected);
      expect(result.lost).toEqual(lost ?? []);
      expect(validFor(after, result.value!)).toBe(true);
    }
    if (from === 'select' && to === 'multiSelect') expect(result.value).toEqual([stored]);
  });

  it('matches a retyped text to an existing option by label, whatever its case', () => {
    const before: Property & { type: OwnType } = { id: 'p', name: 'P', type: 'text' };
    const after: Property & { type: OwnType } = { id: 'p', name: 'P', type: 'select', options: [{ id: 'o_red', label: 'Red' }] };
    const migration = new ValueMigration(before, after);
    expect(migration.migrate('red')).toEqual({ value: 'o_red', lost: [] });
    const blue = migration.migrate('Blue');
    expect(after.options!.map((o) => o.label)).toEqual(['Red', 'Blue']);
    expect(migration.migrate(' blue ')).toEqual(blue);
  });

  it('carries nothing for an empty stored value and reports nothing lost', () => {
    for (const [from, to] of pairs) {
      const { property } = source(from, from === 'checkbox' ? true : 'x');
      for (const empty of [null, '', []] as (StoredValue | null)[])
        expect(new ValueMigration(property, target(property, to)).migrate(empty)).toEqual({ lost: [] });
    }
  });
});

/** Stored values of each type, as the store holds them: select types as ids of `options`. */
const OPTIONS: PropertyOption[] = ['Red', 'Green', '42', 'yes', '2026-01-02', 'https://a.example', 'a@b.example', 'x, y'].map((label, i) => ({
  id: `o_${i}`,
  label,
}));
const texts = fc.oneof(
  fc.string({ minLength: 1 }),
  fc.constantFrom(
    '1,234.5',
    '-3',
    '1e3',
    'twelve',
    '2026-12-01',
    '2026-12-01T09:00:00Z',
    '2026-02-30',
    'yes',
    'No',
    'https://a.example/x',
    'a@b.example',
    'a, b',
    '  ',
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
);
const storedOf: Record<OwnType, fc.Arbitrary<StoredValue>> = {
  text: texts,
  number: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  checkbox: fc.boolean(),
  date: fc
    .date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
    .chain((d) => fc.constantFrom(d.toISOString(), d.toISOString().slice(0, 10))),
  url: fc.webUrl(),
  email: fc.emailAddress(),
  select: fc.constantFrom(...OPTIONS.map((o) => o.id)),
  multiSelect: fc.uniqueArray(fc.constantFrom(...OPTIONS.map((o) => o.id)), { minLength: 1, maxLength: 4 }),
};

describe('the retype matrix on random values', () => {
  it.each(pairs)('%s → %s keeps its word: the outcome holds and what is carried is a valid value', (from, to) => {
    const rule = RETYPE_MATRIX[from][to];
    fc.assert(
      fc.property(storedOf[from], (stored) => {
        const before: Property & { type: OwnType } = { id: 'p', name: 'P', type: from, ...(isSelect(from) ? { options: OPTIONS } : {}) };
        const after = target(before, to);
        const result = new ValueMigration(before, after).migrate(stored);
        if (result.value !== undefined) expect(validFor(after, result.value)).toBe(true);
        if (rule.outcome === 'lost') expect(result).toEqual({ lost: [expect.any(String)] });
        if (rule.outcome === 'keeps' || rule.outcome === 'converts') {
          // Blank text has nothing to make an option of: the one loss a converting rule knows
          // (into multiSelect, text is split at commas first, so ", ," is blank too).
          const blank =
            from === 'text' && typeof stored === 'string' && (to === 'multiSelect' ? stored.split(',') : [stored]).every((part) => part.trim() === '');
          if (!blank) expect(result.lost).toEqual([]);
        }
        if (rule.outcome === 'keeps') expect(isSelect(to) ? [result.value].flat() : result.value).toEqual(isSelect(to) ? [stored].flat() : stored);
        // A value is either carried whole, trimmed (multiSelect → select), or lost whole.
        if (result.value === undefined) expect(result.lost.length).toBeGreaterThan(0);
        else if (!(from === 'multiSelect' && to === 'select')) expect(result.lost).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('text of commas and blanks only has no label to carry into multiSelect: it is lost, like blank text', () => {
    const before: Property & { type: OwnType } = { id: 'p', name: 'P', type: 'text' };
    expect(new ValueMigration(before, target(before, 'multiSelect')).migrate(' , ,')).toEqual({ lost: [expect.any(String)] });
    expect(new ValueMigration(before, target(before, 'multiSelect')).migrate('a, ,b').lost).toEqual([]);
  });

  it('round-trips number → text → number and checkbox → text → checkbox', () => {
    fc.assert(
      fc.property(storedOf.number, storedOf.checkbox, (n, b) => {
        const via = (value: StoredValue, a: OwnType, t: OwnType) =>
          new ValueMigration({ id: 'p', name: 'P', type: a }, { id: 'p', name: 'P', type: t }).migrate(value).value!;
        expect(via(via(n, 'number', 'text'), 'text', 'number')).toBe(Object.is(n, -0) ? 0 : n);
        expect(via(via(b, 'checkbox', 'text'), 'text', 'checkbox')).toBe(b);
      }),
    );
  });
});
