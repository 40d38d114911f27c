/**
 * List properties: the column model shared by lists, items and queries.
 * @see openapi/openapi.yaml components/schemas/Property
 */
import { shortId } from '../ids.js';
import { ApiError, invalid } from '../../core/errors.js';

export type PropertyType = 'text' | 'number' | 'select' | 'multiSelect' | 'date' | 'checkbox' | 'url' | 'email' | 'status';
export const OWN_PROPERTY_TYPES: PropertyType[] = ['text', 'number', 'select', 'multiSelect', 'date', 'checkbox', 'url', 'email'];

export interface PropertyOption {
  id: string;
  label: string;
  color?: string | null;
}
export interface Property {
  id: string;
  name: string;
  type: PropertyType;
  options?: PropertyOption[];
}

export const STATUS_ID = 'status';
export const DUE_DATE_ID = 'dueDate';

/** The reserved task columns a tasks list keeps; renamable, never retyped or removed. */
export function taskColumns(): Property[] {
  return [
    {
      id: STATUS_ID,
      name: 'Status',
      type: 'status',
      options: [
        { id: 'todo', label: 'To do' },
        { id: 'inProgress', label: 'In progress' },
        { id: 'completed', label: 'Done' },
      ],
    },
    { id: DUE_DATE_ID, name: 'Due date', type: 'date' },
  ];
}

export function isSelectType(type: PropertyType): boolean {
  return type === 'select' || type === 'multiSelect' || type === 'status';
}

export function isReserved(id: string): boolean {
  return id === STATUS_ID || id === DUE_DATE_ID;
}

type OptionInput = string | { id?: string; label: string; color?: string | null };

/** Options from input (labels or objects), de-duplicated by label, with fresh ids unless kept. */
export function buildOptions(input: OptionInput[] | null | undefined, keep: PropertyOption[] = []): PropertyOption[] {
  const out: PropertyOption[] = [];
  const seen = new Set<string>();
  for (const raw of input ?? []) {
    const option = typeof raw === 'string' ? { label: raw } : raw;
    const label = option.label.trim();
    if (!label || seen.has(label.toLowerCase())) continue;
    seen.add(label.toLowerCase());
    // An option keeps its id when named by id, else by label; each kept option is kept once.
    const free = keep.filter((o) => !out.some((u) => u.id === o.id));
    const kept = free.find((o) => 'id' in option && o.id === option.id) ?? free.find((o) => o.label.toLowerCase() === label.toLowerCase());
    out.push({
      id: kept?.id ?? shortId('o_'),
      label,
      ...(option.color !== undefined ? { color: option.color } : kept?.color !== undefined ? { color: kept.color } : {}),
    });
  }
  return out;
}

interface PropertyInput {
  name: string;
  type: string;
  options?: OptionInput[] | null;
}

/** New own properties from input; names must be unique among `existing` and each other. */
export function buildProperties(inputs: PropertyInput[], existing: Property[], field: string, titleLabel: string | null): Property[] {
  const names = new Set(existing.map((p) => p.name.toLowerCase()));
  const titleName = (titleLabel || 'Title').toLowerCase();
  return inputs.map((input, index) => {
    const name = input.name.trim();
    if (!name) throw invalid(`${field}[${index}].name is empty; give the property a name.`, `${field}[${index}].name`);
    if (name.toLowerCase() === titleName || name.toLowerCase() === 'title') {
      throw new ApiError(
        'toolError',
        `${field}[${index}] '${name}' would duplicate the title column; every item already has a title (rename its heading with titleLabel).`,
        { field: `${field}[${index}].name` },
      );
    }
    if (names.has(name.toLowerCase())) {
      throw new ApiError('toolError', `${field}[${index}] '${name}' duplicates a property name; names must be unique in a list.`, {
        field: `${field}[${index}].name`,
      });
    }
    names.add(name.toLowerCase());
    const type = input.type as PropertyType;
    if (!OWN_PROPERTY_TYPES.includes(type)) {
      throw invalid(`${field}[${index}].type '${input.type}' is not a property type; valid: ${OWN_PROPERTY_TYPES.join(', ')}.`, `${field}[${index}].type`);
    }
    const property: Property = { id: shortId('p_'), name, type };
    if (isSelectType(type)) property.options = buildOptions(input.options);
    return property;
  });
}

/** Finds a property by id, then by name (case-insensitive). */
export function findProperty(properties: Property[], key: string): Property | undefined {
  return properties.find((p) => p.id === key) ?? properties.find((p) => p.name.toLowerCase() === key.trim().toLowerCase());
}

/** "Status, Due, Priority": the valid names, for error sentences. */
export function propertyNames(properties: Property[]): string {
  return properties.length ? properties.map((p) => p.name).join(', ') : '(this list has no properties)';
}
