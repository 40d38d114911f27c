/** The model query_items' where clauses are checked against: the properties, values and clauses the property test draws, and what each should select. */
import fc from 'fast-check';

export const OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'contains', 'in', 'isEmpty', 'isNotEmpty'] as const;
export type Op = (typeof OPS)[number];
export type Kind = 'text' | 'number' | 'date' | 'due' | 'instant' | 'bool' | 'option' | 'options' | 'status';
export type Scalar = string | number | boolean;
export type Value = Scalar | Scalar[] | undefined;

/** What a clause may name: `key` as sent (own properties may be swapped for their id), its kind, and the label refusals name it by. */
export interface Target {
  key: string;
  kind: Kind;
  label: string;
  own?: boolean;
}
export const TARGETS: Target[] = [
  { key: 'title', kind: 'text', label: 'title' },
  { key: 'Words', kind: 'text', label: 'Words', own: true },
  { key: 'Link', kind: 'text', label: 'Link', own: true },
  { key: 'Contact', kind: 'text', label: 'Contact', own: true },
  { key: 'Pages', kind: 'number', label: 'Pages', own: true },
  { key: 'Started', kind: 'date', label: 'Started', own: true },
  { key: 'Owned', kind: 'bool', label: 'Owned', own: true },
  { key: 'Shelf', kind: 'option', label: 'Shelf', own: true },
  { key: 'Tags', kind: 'options', label: 'Tags', own: true },
  { key: 'status', kind: 'status', label: 'Status' },
  { key: 'Status', kind: 'status', label: 'Status' },
  { key: 'dueDate', kind: 'due', label: 'Due date' },
  { key: 'due date', kind: 'due', label: 'Due date' },
  { key: 'createdAt', kind: 'instant', label: 'createdAt' },
  { key: 'updatedAt', kind: 'instant', label: 'updatedAt' },
];
export const SHELF = ['To read', 'Read', 'Lent'];
export const TAGS = ['sf', 'classic', 'poetry'];
export const STATUSES = [
  { id: 'todo', label: 'To do' },
  { id: 'inProgress', label: 'In progress' },
  { id: 'completed', label: 'Done' },
];
export const TRUE = ['true', 'yes', '1', 'x', 'checked'];
export const FALSE = ['false', 'no', '0', 'unchecked'];

// Days around both of London's clock changes, so a date alone read in the wrong zone shows.
export const DAYS = ['2026-03-29', '2026-03-30', '2026-07-01', '2026-10-25', '2026-11-30'];
export const TIMES = ['T00:00:00Z', 'T09:30:00.250Z', 'T23:00:00Z', 'T00:30:00+01:00', 'T23:30:00-02:00'];
export const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), minLength: 1, maxLength: 3 });
export const dateText = fc.tuple(fc.constantFrom(...DAYS), fc.option(fc.constantFrom(...TIMES), { nil: '' })).map(([d, t]) => d + t);

export const itemArb = fc.record({
  title: fc.oneof(word, fc.constant('')),
  status: fc.constantFrom('todo', 'inProgress', 'completed'),
  due: fc.option(dateText, { nil: undefined }),
  Words: fc.option(word, { nil: undefined }),
  Link: fc.option(
    word.map((w) => `https://${w}.example`),
    { nil: undefined },
  ),
  Contact: fc.option(
    word.map((w) => `${w}@example.org`),
    { nil: undefined },
  ),
  Pages: fc.option(fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom(0.5, -1.25, 1000)), { nil: undefined }),
  Started: fc.option(dateText, { nil: undefined }),
  Owned: fc.option(fc.boolean(), { nil: undefined }),
  Shelf: fc.option(fc.constantFrom(...SHELF), { nil: undefined }),
  Tags: fc.option(fc.subarray(TAGS, { minLength: 1 }), { nil: undefined }),
});
export type ItemSpec = typeof itemArb extends fc.Arbitrary<infer T> ? T : never;

/** Values of one kind: ones that fit and ones that do not. `ordered` keeps text to what every collation sorts alike. */
export function scalarFor(t: Target, ordered: boolean): fc.Arbitrary<Scalar> {
  switch (t.kind) {
    case 'text': {
      const fits = t.key === 'Link' ? word.map((w) => `https://${w}.example`) : t.key === 'Contact' ? word.map((w) => `${w}@example.org`) : word;
      if (ordered) return fc.oneof(fits, word, fc.constantFrom('0', '1'), fc.constant(''));
      return fc.oneof(
        fits,
        word,
        word.map((w) => w.toUpperCase()),
        fc.constantFrom('%', '_', 'a%', 'b_', '\\', '', 'sf'),
        fc.integer({ min: 0, max: 2 }),
        fc.constant(true),
      );
    }
    case 'number':
      return fc.oneof(
        fc.integer({ min: -3, max: 3 }),
        fc.constantFrom(0.5, -1.25, 1000),
        fc.integer({ min: -3, max: 3 }).map(String),
        fc.constantFrom('1,000', ' 2 ', '1e3', 'abc', '', 'NaN', 'Infinity', true),
      );
    case 'date':
    case 'due':
    case 'instant':
      return fc.oneof(dateText, dateText, fc.constantFrom('2026-02-30', 'soon', '30/11/2026', '2026-11-30T24:30:00Z', ''), fc.integer({ min: 0, max: 3 }));
    case 'bool':
      return fc.oneof(fc.boolean(), fc.constantFrom('yes', 'No', 'TRUE', '0', '1', 'x', 'checked', 'unchecked', 'maybe', ''), fc.constantFrom(1, 0, 2));
    case 'option':
      return fc.oneof(fc.constantFrom(...SHELF), fc.constantFrom('read', 'LENT', '#id:Read', '#id:Lent', 'Jazz', '', 3));
    case 'options':
      return fc.oneof(fc.constantFrom(...TAGS), fc.constantFrom('SF', 'Classic', '#id:poetry', 'jazz', ''));
    case 'status':
      return fc.constantFrom('todo', 'inProgress', 'completed', 'To do', 'to do', 'DONE', 'In progress', 'TODO', 'blocked', '', 3);
  }
}

export function valueFor(t: Target, op: Op): fc.Arbitrary<Value> {
  if (op === 'isEmpty' || op === 'isNotEmpty') return fc.constant(undefined);
  const ordered = ['lt', 'lte', 'gt', 'gte'].includes(op);
  const one = scalarFor(t, ordered);
  const several = fc.array(one, { minLength: 0, maxLength: 3 });
  // Mostly one value (several for `in` and multiSelect), sometimes the other shape, sometimes none.
  const usual =
    op === 'in' || t.kind === 'options'
      ? fc.oneof({ weight: 4, arbitrary: several }, { weight: 1, arbitrary: one })
      : fc.oneof({ weight: 6, arbitrary: one }, { weight: 1, arbitrary: several });
  return fc.oneof({ weight: 12, arbitrary: usual as fc.Arbitrary<Value> }, { weight: 1, arbitrary: fc.constant(undefined) });
}

export const clauseArb = fc
  .record({ target: fc.constantFrom(...TARGETS), op: fc.constantFrom(...OPS), byId: fc.boolean() })
  .chain(({ target, op, byId }) => valueFor(target, op).map((value) => ({ target, op, byId, value })));
export type Clause = typeof clauseArb extends fc.Arbitrary<infer C> ? C : never;

/** The instant at which `day` starts in `zone`. */
export function startOfDay(day: string, zone: string): number {
  const wall = Date.parse(`${day}T00:00:00Z`);
  const offset = (at: number) => {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }).formatToParts(at);
    const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
    return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(at / 1000) * 1000;
  };
  return wall - offset(wall - offset(wall));
}

/** An ISO 8601 date or date-time (with Z or an offset) as an instant; a date alone starts in `zone`. Undefined for anything else. */
export function instantOf(text: string, zone: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2}))?$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const calendar = new Date(Date.UTC(y, mo - 1, d));
  if (calendar.getUTCMonth() !== mo - 1 || calendar.getUTCDate() !== d) return undefined;
  if (m[4] === undefined) return startOfDay(text, zone);
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59) return undefined;
  return Date.parse(text);
}

export interface Row {
  id: string;
  title: string | null;
  status: string;
  dueAt: string | null;
  createdAt: string;
  updatedAt: string;
  values: Record<string, unknown>;
}
export interface ListShape {
  id: string;
  propertyId: Record<string, string>;
  optionId: Record<string, Record<string, string>>;
}

export const REFUSED = Symbol('refused');
export type Parsed = Scalar | string[];
