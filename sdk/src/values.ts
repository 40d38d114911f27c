/**
 * Values by name: items carry `values` keyed by property id and select options by option id.
 * `valueNames(lk, listId)` reads the list's properties once and maps both ways.
 */
import type { components } from './generated/api.js';

type List = components['schemas']['List'];
type Property = List['properties'][number];
/** A value as the API holds it: text, number, boolean, an option id, option ids, a date, or nothing. */
export type Value = string | number | boolean | string[] | null;

export interface ValueNames {
  /** The list's properties, as read. */
  readonly properties: readonly Property[];
  /** `{ propertyId: optionId }` → `{ 'Property name': 'Option label' }`. Unknown ids are kept as they are. */
  toNames(values: Record<string, unknown> | null | undefined): Record<string, Value>;
  /** `{ 'Property name': 'Option label' }` → `{ propertyId: optionId }`; throws on a name or label the list does not have. */
  fromNames(named: Record<string, Value>): Record<string, Value>;
}

interface ListsReader {
  GET(path: '/lists', init?: object): Promise<{ data?: { lists: List[] } | undefined; error?: unknown }>;
}

/** Reads the list's properties and returns the mapping. */
export async function valueNames(lk: ListsReader, listId: string): Promise<ValueNames> {
  const { data, error } = await lk.GET('/lists');
  if (error || !data) throw new Error(`could not read the lists: ${JSON.stringify(error)}`);
  const list = data.lists.find((l) => l.id === listId || l.name.toLowerCase() === listId.toLowerCase());
  if (!list) throw new Error(`No list '${listId}'; lists: ${data.lists.map((l) => l.name).join(', ')}`);
  return mapping(list.properties);
}

/** The mapping over properties already read. */
export function mapping(properties: readonly Property[]): ValueNames {
  const byId = new Map(properties.map((p) => [p.id, p]));
  const byName = new Map(properties.map((p) => [p.name.toLowerCase(), p]));
  const options = (p: Property) => (p as { options?: { id: string; label: string }[] }).options ?? [];
  const label = (p: Property, id: unknown) => options(p).find((o) => o.id === id)?.label ?? id;
  const optionId = (p: Property, text: unknown) => {
    const found = options(p).find((o) => o.label.toLowerCase() === String(text).toLowerCase() || o.id === text);
    if (!found)
      throw new Error(
        `'${String(text)}' is not an option of ${p.name}; options: ${options(p)
          .map((o) => o.label)
          .join(', ')}`,
      );
    return found.id;
  };
  return {
    properties,
    toNames(values) {
      const out: Record<string, Value> = {};
      for (const [id, value] of Object.entries(values ?? {})) {
        const p = byId.get(id);
        if (!p) out[id] = value as Value;
        else if (Array.isArray(value)) out[p.name] = value.map((v) => String(label(p, v)));
        else out[p.name] = (options(p).length ? label(p, value) : value) as Value;
      }
      return out;
    },
    fromNames(named) {
      const out: Record<string, Value> = {};
      for (const [name, value] of Object.entries(named)) {
        const p = byName.get(name.toLowerCase()) ?? byId.get(name);
        if (!p) throw new Error(`No property '${name}'; properties: ${properties.map((x) => x.name).join(', ')}`);
        if (options(p).length && value !== null) out[p.id] = Array.isArray(value) ? value.map((v) => optionId(p, v)) : optionId(p, value);
        else out[p.id] = value;
      }
      return out;
    },
  };
}
