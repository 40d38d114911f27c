/**
 * Worked examples of the retype matrix, shared by the domain test (src/domain/lists/retype.ts on
 * its own) and the update_list test (the same cases through the operation and the store).
 * Select values are written as labels on both sides: `from` values name the source's option
 * labels, `to` values the labels of the new options.
 */
import { textToDate, textToEmail, textToUrl, type OwnType, type StoredValue } from '../../src/domain/lists/retype.js';
import type { Property } from '../../src/domain/lists/properties.js';

export interface RetypeCase {
  from: OwnType;
  to: OwnType;
  /** The stored value; for select types its option label(s). */
  value: StoredValue;
  /** What it becomes (labels for select types), or 'lost'. */
  expected: StoredValue | 'lost';
  /** What the preview reports lost for this value, when only part is lost. */
  lost?: string[];
}

const c = (from: OwnType, to: OwnType, value: StoredValue, expected: StoredValue | 'lost', lost?: string[]): RetypeCase => ({
  from,
  to,
  value,
  expected,
  ...(lost ? { lost } : {}),
});

export const RETYPE_CASES: RetypeCase[] = [
  c('text', 'number', '1,234.5', 1234.5),
  c('text', 'number', ' -3 ', -3),
  c('text', 'number', '1e3', 1000),
  c('text', 'number', 'twelve', 'lost'),
  c('text', 'number', '0x10', 'lost'),
  c('text', 'number', '1,5', 'lost'),
  c('text', 'select', 'Red', 'Red'),
  c('text', 'select', 'a, b', 'a, b'),
  c('text', 'select', '   ', 'lost'),
  c('text', 'multiSelect', 'a, b,,A', ['a', 'b']),
  c('text', 'multiSelect', 'one', ['one']),
  c('text', 'date', '2026-12-01', '2026-12-01'),
  c('text', 'date', '2026-12-01T09:00:00+02:00', '2026-12-01T07:00:00.000Z'),
  c('text', 'date', '2026-02-30', 'lost'),
  c('text', 'date', 'tomorrow', 'lost'),
  c('text', 'checkbox', 'Yes', true),
  c('text', 'checkbox', 'x', true),
  c('text', 'checkbox', '0', false),
  c('text', 'checkbox', 'maybe', 'lost'),
  c('text', 'url', ' https://example.com/a ', 'https://example.com/a'),
  c('text', 'url', 'example.com', 'lost'),
  c('text', 'email', 'ada@example.com', 'ada@example.com'),
  c('text', 'email', 'ada at example', 'lost'),

  c('number', 'text', 1234.5, '1234.5'),
  c('number', 'select', 3, '3'),
  c('number', 'multiSelect', -1.5, ['-1.5']),
  c('number', 'date', 20261201, 'lost'),
  c('number', 'checkbox', 0, false),
  c('number', 'checkbox', -2.5, true),
  c('number', 'url', 5, 'lost'),
  c('number', 'email', 5, 'lost'),

  c('select', 'text', 'Red', 'Red'),
  c('select', 'number', '42', 42),
  c('select', 'number', 'Red', 'lost'),
  c('select', 'multiSelect', 'Red', ['Red']),
  c('select', 'date', '2026-01-02', '2026-01-02'),
  c('select', 'date', 'Soon', 'lost'),
  c('select', 'checkbox', 'yes', true),
  c('select', 'checkbox', 'Red', 'lost'),
  c('select', 'url', 'https://a.example', 'https://a.example'),
  c('select', 'url', 'Red', 'lost'),
  c('select', 'email', 'a@b.example', 'a@b.example'),
  c('select', 'email', 'Red', 'lost'),

  c('multiSelect', 'text', ['A', 'B'], 'A, B'),
  c('multiSelect', 'select', ['A', 'B', 'C'], 'A', ['B', 'C']),
  c('multiSelect', 'select', ['B'], 'B'),
  c('multiSelect', 'number', ['7'], 7),
  c('multiSelect', 'number', ['7', '8'], 'lost'),
  c('multiSelect', 'date', ['2026-01-02'], '2026-01-02'),
  c('multiSelect', 'date', ['2026-01-02', '2026-01-03'], 'lost'),
  c('multiSelect', 'checkbox', ['no'], false),
  c('multiSelect', 'checkbox', ['no', 'yes'], 'lost'),
  c('multiSelect', 'url', ['https://x.example'], 'https://x.example'),
  c('multiSelect', 'url', ['https://x.example', 'https://y.example'], 'lost'),
  c('multiSelect', 'email', ['a@b.example'], 'a@b.example'),
  c('multiSelect', 'email', ['a@b.example', 'c@d.example'], 'lost'),

  c('date', 'text', '2026-12-01', '2026-12-01'),
  c('date', 'text', '2026-12-01T09:00:00.000Z', '2026-12-01T09:00:00.000Z'),
  c('date', 'select', '2026-12-01', '2026-12-01'),
  c('date', 'multiSelect', '2026-12-01T09:00:00.000Z', ['2026-12-01T09:00:00.000Z']),
  c('date', 'number', '2026-12-01', 'lost'),
  c('date', 'checkbox', '2026-12-01', 'lost'),
  c('date', 'url', '2026-12-01', 'lost'),
  c('date', 'email', '2026-12-01', 'lost'),

  c('checkbox', 'text', true, 'true'),
  c('checkbox', 'text', false, 'false'),
  c('checkbox', 'number', true, 1),
  c('checkbox', 'number', false, 0),
  c('checkbox', 'select', true, 'true'),
  c('checkbox', 'multiSelect', false, ['false']),
  c('checkbox', 'date', true, 'lost'),
  c('checkbox', 'url', true, 'lost'),
  c('checkbox', 'email', false, 'lost'),

  c('url', 'text', 'https://a.example/c', 'https://a.example/c'),
  c('url', 'select', 'https://a.example/c', 'https://a.example/c'),
  c('url', 'multiSelect', 'https://a.example/c,d', ['https://a.example/c,d']),
  c('url', 'email', 'https://a.example', 'lost'),
  c('url', 'email', 'http://u@h.example', 'http://u@h.example'),
  c('url', 'number', 'https://a.example', 'lost'),
  c('url', 'date', 'https://a.example', 'lost'),
  c('url', 'checkbox', 'https://a.example', 'lost'),

  c('email', 'text', 'a@b.example', 'a@b.example'),
  c('email', 'select', 'a@b.example', 'a@b.example'),
  c('email', 'multiSelect', 'a@b.example', ['a@b.example']),
  c('email', 'url', 'a@b.example', 'lost'),
  c('email', 'url', 'http://ada@example.com', 'http://ada@example.com'),
  c('email', 'number', 'a@b.example', 'lost'),
  c('email', 'date', 'a@b.example', 'lost'),
  c('email', 'checkbox', 'a@b.example', 'lost'),
];

/** True when `value` is a valid stored value of `property`: what a migration must produce. */
export function validFor(property: Property, value: StoredValue): boolean {
  const ids = (property.options ?? []).map((o) => o.id);
  switch (property.type) {
    case 'text':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'checkbox':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && textToDate(value) === value;
    case 'url':
      return typeof value === 'string' && textToUrl(value) === value;
    case 'email':
      return typeof value === 'string' && textToEmail(value) === value;
    case 'select':
      return typeof value === 'string' && ids.includes(value);
    case 'multiSelect':
      return Array.isArray(value) && value.length > 0 && new Set(value).size === value.length && value.every((v) => ids.includes(v));
    default:
      return false;
  }
}
