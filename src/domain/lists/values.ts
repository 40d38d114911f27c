/**
 * Item values: turning what callers send (property ids or names; select values as labels or
 * option ids) into what is stored (keyed by property id; select values as option ids), and
 * back into text for `cells`.
 * @see openapi/openapi.yaml components/schemas/ValuesInput
 */
import { parseIsoInstant } from '../time.js';
import { buildOptions, findProperty, isReserved, propertyNames, type Property, type PropertyOption } from './properties.js';

export type StoredValue = string | number | boolean | string[];
export type StoredValues = Record<string, StoredValue>;
type RawValue = string | number | boolean | (string | number)[] | null | undefined;

/** Pairs `[{property, value}]` or an object keyed by id or name, as one list of pairs. */
export function valuePairs(input: unknown): { property: string; value: RawValue }[] {
  if (input === undefined || input === null) return [];
  if (Array.isArray(input)) return input.map((p: { property: string; value?: RawValue }) => ({ property: p.property, value: p.value }));
  return Object.entries(input as Record<string, RawValue>).map(([property, value]) => ({ property, value }));
}

export interface ResolvedValues {
  /** Values to set, by property id; `null` means clear. */
  set: Record<string, StoredValue | null>;
  /** Task columns named as properties: `status` → taskStatus, `dueDate` → dueAt. */
  taskStatus?: string | null;
  dueAt?: string | null;
  /** Options to add to select properties (unknown labels become options). */
  newOptions: Map<string, PropertyOption[]>;
}

/** A value the caller sent that cannot be stored; the sentence names the property and what is allowed. */
export class ValueError extends Error {}

/**
 * Resolves input values against a list's properties. Throws ValueError for an unknown
 * property (naming the valid ones) or a value of the wrong kind.
 */
export function resolveValues(properties: Property[], input: unknown): ResolvedValues {
  const out: ResolvedValues = { set: {}, newOptions: new Map() };
  for (const { property: key, value } of valuePairs(input)) {
    const property = findProperty(properties, key);
    if (!property) throw new ValueError(`unknown property '${key}'; valid: ${propertyNames(properties)}.`);
    const clear = value === null || value === '' || (Array.isArray(value) && value.length === 0);
    if (isReserved(property.id)) {
      if (property.id === 'status') out.taskStatus = clear ? null : statusFromValue(property, value);
      else out.dueAt = clear ? null : String(value);
      continue;
    }
    if (clear) {
      out.set[property.id] = null;
      continue;
    }
    out.set[property.id] = coerce(property, value, out.newOptions);
  }
  return out;
}

function statusFromValue(property: Property, value: RawValue): string {
  const option = matchOption(property.options ?? [], String(value));
  if (!option)
    throw new ValueError(`'${property.name}' takes ${property.options!.map((o) => `${o.id} (${o.label})`).join(', ')}; received '${String(value)}'.`);
  return option.id;
}

function matchOption(options: PropertyOption[], value: string): PropertyOption | undefined {
  const needle = value.trim().toLowerCase();
  return options.find((o) => o.id === value) ?? options.find((o) => o.label.toLowerCase() === needle);
}

/** One option id for a label or id; an unknown label becomes a new option. */
function optionFor(property: Property, raw: string | number, newOptions: Map<string, PropertyOption[]>): string {
  const label = String(raw).trim();
  if (!label) throw new ValueError(`'${property.name}' got an empty option.`);
  const pending = newOptions.get(property.id) ?? [];
  const found = matchOption([...(property.options ?? []), ...pending], label);
  if (found) return found.id;
  const [created] = buildOptions([label]);
  newOptions.set(property.id, [...pending, created!]);
  return created!.id;
}

function coerce(property: Property, value: RawValue, newOptions: Map<string, PropertyOption[]>): StoredValue {
  const wrong = (expected: string) =>
    new ValueError(`'${property.name}' is a ${property.type} property and takes ${expected}; received ${JSON.stringify(value)}.`);
  switch (property.type) {
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value.replace(/,/g, '')) : NaN;
      if (!Number.isFinite(n)) throw wrong('a number');
      return n;
    }
    case 'checkbox': {
      if (typeof value === 'boolean') return value;
      const text = String(value).trim().toLowerCase();
      if (['true', 'yes', '1', 'x', 'checked'].includes(text)) return true;
      if (['false', 'no', '0', 'unchecked'].includes(text)) return false;
      throw wrong('true or false');
    }
    case 'date': {
      const text = typeof value === 'string' ? value.trim() : '';
      const at = parseIsoInstant(text);
      if (!at) throw wrong('an ISO 8601 date such as 2026-12-01 or 2026-12-01T09:00:00Z');
      // A date-time is stored as the UTC instant read as query_items compares it (no offset: UTC).
      return text.length === 10 ? text : at.toISOString();
    }
    case 'select': {
      if (Array.isArray(value)) {
        if (value.length !== 1) throw wrong('one option (label or id)');
        return optionFor(property, value[0]!, newOptions);
      }
      if (typeof value !== 'string' && typeof value !== 'number') throw wrong('an option label or id');
      return optionFor(property, value, newOptions);
    }
    case 'multiSelect': {
      const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
      if (list.some((v) => typeof v === 'boolean')) throw wrong('an array of option labels or ids');
      return [...new Set(list.filter((v) => String(v).trim() !== '').map((v) => optionFor(property, v as string | number, newOptions)))];
    }
    case 'url': {
      if (typeof value !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(value.trim())) throw wrong('a URL such as https://example.com');
      return value.trim();
    }
    case 'email': {
      if (typeof value !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(value.trim())) throw wrong('an email address');
      return value.trim();
    }
    default: {
      if (Array.isArray(value)) return value.join(', ');
      return String(value);
    }
  }
}

/** True for an ISO 8601 date or date-time that parses. */
export function isIsoDate(value: string): boolean {
  return parseIsoInstant(value) !== null;
}

/** A stored value as text, for `cells` and labels. */
export function valueText(property: Property, value: StoredValue | undefined): string {
  if (value === undefined || value === null) return '';
  const label = (id: string) => property.options?.find((o) => o.id === id)?.label ?? id;
  switch (property.type) {
    case 'select':
    case 'status':
      return label(String(value));
    case 'multiSelect':
      return (Array.isArray(value) ? value : [String(value)]).map(label).join(', ');
    case 'checkbox':
      return value ? 'Yes' : 'No';
    default:
      return String(value);
  }
}

/** Adds new options to the list's select properties; returns the properties to store. */
export function withNewOptions(properties: Property[], newOptions: Map<string, PropertyOption[]>): Property[] {
  if (newOptions.size === 0) return properties;
  return properties.map((p) => (newOptions.has(p.id) ? { ...p, options: [...(p.options ?? []), ...newOptions.get(p.id)!] } : p));
}

/** True when a stored value counts as empty. */
export function isEmptyValue(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

interface NamedProperty {
  id: string;
  name: string;
  options?: { id: string; label: string }[] | null;
}

/** Values keyed by property name, select options as their labels: the `valuesBy: name` reading. Unknown ids stay as they are. */
export function valuesByName(values: Record<string, unknown> | null | undefined, properties: readonly NamedProperty[]): Record<string, unknown> {
  const byId = new Map(properties.map((p) => [p.id, p]));
  const out: Record<string, unknown> = {};
  for (const [id, value] of Object.entries(values ?? {})) {
    const property = byId.get(id);
    if (!property) {
      out[id] = value;
      continue;
    }
    const label = (option: unknown) => property.options?.find((o) => o.id === option)?.label ?? option;
    out[property.name] = property.options?.length ? (Array.isArray(value) ? value.map(label) : label(value)) : value;
  }
  return out;
}

/**
 * Rewrites the values of a read's output by name (list_items and query_items: every item's;
 * get_item: the item's own), using the properties the output carries.
 */
export function outputValuesByName(output: Record<string, unknown>): void {
  const properties = output.properties as NamedProperty[] | undefined;
  if (!Array.isArray(properties)) return;
  if (Array.isArray(output.items)) {
    for (const item of output.items as { values?: Record<string, unknown> }[]) if (item.values) item.values = valuesByName(item.values, properties);
  }
  if (output.values && typeof output.values === 'object') output.values = valuesByName(output.values as Record<string, unknown>, properties);
}
