/**
 * What happens to an item's value when its property changes type or options: the retype
 * matrix (one table, one rule for each pair of property types) and the value migration that
 * applies it. Pure: no store, no clock.
 * @see openapi/openapi.yaml paths./lists/{id}.patch (update_list) description, "Retypes"
 */
import { shortId } from '../ids.js';
import type { Property, PropertyOption } from './properties.js';
import { isEmptyValue, type StoredValue } from './values.js';

/** The types a list's own property can have (the reserved `status` is never retyped). */
export type OwnType = 'text' | 'number' | 'select' | 'multiSelect' | 'date' | 'checkbox' | 'url' | 'email';
export const OWN_TYPES: readonly OwnType[] = ['text', 'number', 'select', 'multiSelect', 'date', 'checkbox', 'url', 'email'];

export type { StoredValue };

/**
 * What a rule carries into the new type, before options are settled:
 * a plain value of the new type; option labels (matched to the new options by label, or made
 * into new options); the source's own option ids (kept only if the new options keep them);
 * or null: the value is lost.
 */
export type Carried = { value: StoredValue } | { labels: string[] } | { optionIds: string[] } | null;

/**
 * keeps: every value carries over as it is; converts: every value converts (never lost);
 * partly: a value converts when it can, else it is lost (or trimmed); lost: every value is lost.
 */
export type Outcome = 'keeps' | 'converts' | 'partly' | 'lost';

export interface RetypeRule {
  outcome: Outcome;
  /** How, in words; rendered into update_list's description by describeRetypes(). */
  how: string;
  carry(value: StoredValue, source: Property): Carried;
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const GROUPED_NUMBER = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;
const URL_FORM = /^[a-z][a-z0-9+.-]*:\/\/\S+$/i;
const EMAIL_FORM = /^[^@\s]+@[^@\s]+$/;
const TRUE_WORDS = ['true', 'yes', '1', 'x', 'checked'];
const FALSE_WORDS = ['false', 'no', '0', 'unchecked'];

/** A number from text: plain (1234.5, -3, 1e3) or grouped by thousands (1,234.5); null otherwise. */
export function textToNumber(text: string): number | null {
  const t = text.trim();
  if (!NUMBER.test(t) && !GROUPED_NUMBER.test(t)) return null;
  const n = Number(t.replace(/,/g, ''));
  return Number.isFinite(n) ? n : null;
}

/** An ISO 8601 date (kept as YYYY-MM-DD) or date-time (normalised to UTC); null otherwise. */
export function textToDate(text: string): string | null {
  const t = text.trim();
  const day = DATE_ONLY.exec(t);
  if (day) {
    const d = new Date(`${t}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === t ? t : null;
  }
  if (!DATE_TIME.test(t)) return null;
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return null;
  // Date() rolls 2026-02-30 over to March; refuse a calendar date that does not exist.
  const calendar = t.slice(0, 10);
  return new Date(`${calendar}T00:00:00Z`).toISOString().slice(0, 10) === calendar ? d.toISOString() : null;
}

export function textToCheckbox(text: string): boolean | null {
  const t = text.trim().toLowerCase();
  if (TRUE_WORDS.includes(t)) return true;
  if (FALSE_WORDS.includes(t)) return false;
  return null;
}

export function textToUrl(text: string): string | null {
  const t = text.trim();
  return URL_FORM.test(t) ? t : null;
}

export function textToEmail(text: string): string | null {
  const t = text.trim();
  return EMAIL_FORM.test(t) ? t : null;
}

/** Option labels of a source select value (an unknown option id reads as itself). */
function labelsOf(value: StoredValue, source: Property): string[] {
  const ids = Array.isArray(value) ? value : [String(value)];
  return ids.map((id) => source.options?.find((o) => o.id === id)?.label ?? id);
}

/** A stored value as the text a conversion starts from. */
export function conversionText(value: StoredValue, source: Property): string {
  if (source.type === 'select' || source.type === 'multiSelect' || source.type === 'status') return labelsOf(value, source).join(', ');
  return Array.isArray(value) ? value.join(', ') : String(value);
}

const present = <T>(v: T | null): Carried => (v === null ? null : { value: v as StoredValue });
const blankIsLost = (labels: string[]): Carried => {
  const kept = labels.map((l) => l.trim()).filter((l) => l !== '');
  return kept.length ? { labels: kept } : null;
};

/** Text into each type: the one place the "read as from text" rules live. */
const FROM_TEXT: Record<OwnType, (text: string) => Carried> = {
  text: (t) => ({ value: t }),
  number: (t) => present(textToNumber(t)),
  date: (t) => present(textToDate(t)),
  checkbox: (t) => present(textToCheckbox(t)),
  url: (t) => present(textToUrl(t)),
  email: (t) => present(textToEmail(t)),
  select: (t) => blankIsLost([t]),
  multiSelect: (t) => blankIsLost(t.split(',')),
};

const keeps = (how = 'kept as it is'): RetypeRule => ({ outcome: 'keeps', how, carry: (v) => ({ value: v }) });
const lost: RetypeRule = { outcome: 'lost', how: 'lost', carry: () => null };
/** The value's text, then the rule from text into the target type. */
const viaText = (to: OwnType, outcome: Outcome, how: string): RetypeRule => ({ outcome, how, carry: (v, source) => FROM_TEXT[to](conversionText(v, source)) });
/** The value's text as the one label of an option. */
const asOption = (how: string): RetypeRule => ({ outcome: 'converts', how, carry: (v, source) => blankIsLost([conversionText(v, source)]) });

const SELECT_READ = 'its label, as from text';
const MULTI_READ = 'one label as from text, two or more lost';

/**
 * THE retype matrix: RETYPE_MATRIX[from][to] for every pair of own property types. The
 * diagonal is a rename or re-option (select types: see settle()). update_list's description
 * in openapi.yaml carries describeRetypes() of this table word for word; a test holds them together.
 */
export const RETYPE_MATRIX: Record<OwnType, Record<OwnType, RetypeRule>> = {
  text: {
    text: keeps(),
    number: viaText('number', 'partly', 'if a number (-3, 1,234.5, 1e3)'),
    select: viaText('select', 'converts', 'an option per distinct text'),
    multiSelect: viaText('multiSelect', 'converts', 'split at commas into options'),
    date: viaText('date', 'partly', 'if an ISO 8601 date or date-time'),
    checkbox: viaText('checkbox', 'partly', 'checked if true/yes/1/x/checked, unchecked if false/no/0/unchecked'),
    url: viaText('url', 'partly', 'if a URL (scheme://…)'),
    email: viaText('email', 'partly', 'if an email address'),
  },
  number: {
    text: viaText('text', 'converts', 'its digits'),
    number: keeps(),
    select: asOption('an option of its digits'),
    multiSelect: asOption('an option of its digits'),
    date: lost,
    checkbox: { outcome: 'converts', how: '0 unchecked, others checked', carry: (v) => ({ value: Number(v) !== 0 }) },
    url: lost,
    email: lost,
  },
  select: {
    text: viaText('text', 'converts', 'its label'),
    number: viaText('number', 'partly', SELECT_READ),
    select: { outcome: 'keeps', how: 'the same option', carry: (v) => ({ optionIds: [String(v)] }) },
    multiSelect: { outcome: 'keeps', how: 'the same option', carry: (v) => ({ optionIds: [String(v)] }) },
    date: viaText('date', 'partly', SELECT_READ),
    checkbox: viaText('checkbox', 'partly', SELECT_READ),
    url: viaText('url', 'partly', SELECT_READ),
    email: viaText('email', 'partly', SELECT_READ),
  },
  multiSelect: {
    text: viaText('text', 'converts', 'its labels joined with ", "'),
    number: viaText('number', 'partly', MULTI_READ),
    select: { outcome: 'partly', how: 'the first option, the others lost', carry: (v) => ({ optionIds: Array.isArray(v) ? v : [String(v)] }) },
    multiSelect: { outcome: 'keeps', how: 'the same options', carry: (v) => ({ optionIds: Array.isArray(v) ? v : [String(v)] }) },
    date: viaText('date', 'partly', MULTI_READ),
    checkbox: viaText('checkbox', 'partly', MULTI_READ),
    url: viaText('url', 'partly', MULTI_READ),
    email: viaText('email', 'partly', MULTI_READ),
  },
  date: {
    text: viaText('text', 'converts', 'its ISO 8601 text'),
    number: lost,
    select: asOption('an option of its ISO 8601 text'),
    multiSelect: asOption('an option of its ISO 8601 text'),
    date: keeps(),
    checkbox: lost,
    url: lost,
    email: lost,
  },
  checkbox: {
    text: viaText('text', 'converts', '"true" or "false"'),
    number: { outcome: 'converts', how: '1 if checked, else 0', carry: (v) => ({ value: v === true ? 1 : 0 }) },
    select: asOption('an option "true" or "false"'),
    multiSelect: asOption('an option "true" or "false"'),
    date: lost,
    checkbox: keeps(),
    url: lost,
    email: lost,
  },
  url: {
    text: viaText('text', 'keeps', 'kept'),
    number: lost,
    select: asOption('an option of it'),
    multiSelect: asOption('an option of it'),
    date: lost,
    checkbox: lost,
    url: keeps(),
    email: viaText('email', 'partly', 'if also an email address'),
  },
  email: {
    text: viaText('text', 'keeps', 'kept'),
    number: lost,
    select: asOption('an option of it'),
    multiSelect: asOption('an option of it'),
    date: lost,
    checkbox: lost,
    url: viaText('url', 'partly', 'if also a URL'),
    email: keeps(),
  },
};

/** The matrix in words, one line per source type; update_list's description holds it verbatim. */
export function describeRetypes(): string {
  const lines = OWN_TYPES.map((from) => {
    const groups = new Map<string, OwnType[]>();
    for (const to of OWN_TYPES) {
      if (to === from) continue;
      const how = RETYPE_MATRIX[from][to].how;
      groups.set(how, [...(groups.get(how) ?? []), to]);
    }
    return `- ${from} → ${[...groups].map(([how, tos]) => `${tos.join('/')}: ${how}`).join('; ')}.`;
  });
  return [
    'Retypes, from → to: what a value becomes ("if …": kept if so, else lost; blank text is lost):',
    ...lines,
    'Re-option (`options`, the full new list, with or without a retype): options kept by id or label keep their values, values of dropped ones are lost; labels from a retype match an option by label or become new ones.',
  ].join('\n');
}

/** The result of migrating one value: the new stored value (absent: none) and what was lost, as text. */
export interface Migrated {
  value?: StoredValue;
  lost: string[];
}

/**
 * One property's value migration from `before` to `after` (same id). `after.options` is the
 * new option list when `after` is a select type; labels that match no option become new
 * options, appended to `after.options` in the order values are migrated.
 */
export class ValueMigration {
  readonly rule: RetypeRule;
  constructor(
    readonly before: Property & { type: OwnType },
    readonly after: Property & { type: OwnType },
  ) {
    this.rule = RETYPE_MATRIX[before.type][after.type];
  }

  migrate(value: StoredValue | null): Migrated {
    // An empty value holds nothing to lose; it is simply not carried.
    if (value === null || isEmptyValue(value)) return { lost: [] };
    return this.settle(this.rule.carry(value, this.before), value);
  }

  /** Turns carried labels or option ids into the stored form of the new type. */
  private settle(carried: Carried, original: StoredValue): Migrated {
    if (carried === null) return { lost: [conversionText(original, this.before)] };
    if ('value' in carried) return { value: carried.value, lost: [] };
    const options = (this.after.options ??= []);
    const kept: string[] = [];
    const lostLabels: string[] = [];
    if ('optionIds' in carried) {
      for (const id of carried.optionIds) {
        if (!options.some((o) => o.id === id)) lostLabels.push(labelsOf(id, this.before)[0]!);
        else if (!kept.includes(id)) kept.push(id);
      }
    } else {
      for (const label of carried.labels) {
        const id = (optionByLabel(options, label) ?? newOption(options, label)).id;
        if (!kept.includes(id)) kept.push(id);
      }
    }
    if (this.after.type === 'select') {
      const [first, ...rest] = kept;
      lostLabels.push(...rest.map((id) => options.find((o) => o.id === id)!.label));
      return first === undefined ? { lost: lostLabels } : { value: first, lost: lostLabels };
    }
    return kept.length ? { value: kept, lost: lostLabels } : { lost: lostLabels };
  }
}

function optionByLabel(options: PropertyOption[], label: string): PropertyOption | undefined {
  const needle = label.trim().toLowerCase();
  return options.find((o) => o.label.toLowerCase() === needle);
}

function newOption(options: PropertyOption[], label: string): PropertyOption {
  const option = { id: shortId('o_'), label: label.trim() };
  options.push(option);
  return option;
}

/** The migration of a deleted property: every value is lost. */
export function deletedValue(value: StoredValue | null, property: Property): Migrated {
  return value === null || isEmptyValue(value) ? { lost: [] } : { lost: [conversionText(value, property)] };
}
