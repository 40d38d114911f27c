/**
 * Moving items between lists: which destination property each source property's values
 * follow, and what an item's values become on the destination. Pure: no store.
 * @see openapi/openapi.yaml move_items
 */
import { isReserved, isSelectType, type Property, type PropertyOption } from '../lists/properties.js';
import { isEmptyValue, type StoredValue, type StoredValues } from '../lists/values.js';
import { shortId } from '../ids.js';

/** A value that does not come along: the source property's name and the value as the person sees it. */
export interface DroppedValue {
  property: string;
  /** Select values as their labels (multiSelect: an array of labels); others as stored. */
  value: StoredValue;
}

/**
 * Where each source property's values go: to the destination property with the same id, else
 * to the one with the same name (case-insensitive) and the same type. Each destination
 * property takes one source property at most; id matches claim first. The reserved task
 * columns are not values (status and due date stay in their own columns), so they never map.
 */
export function matchProperties(source: Property[], destination: Property[]): Map<string, Property> {
  const out = new Map<string, Property>();
  const claimed = new Set<string>();
  const own = (p: Property) => !isReserved(p.id);
  for (const s of source.filter(own)) {
    const d = destination.find((p) => own(p) && p.id === s.id && p.type === s.type);
    if (d) {
      out.set(s.id, d);
      claimed.add(d.id);
    }
  }
  for (const s of source.filter(own)) {
    if (out.has(s.id)) continue;
    const d = destination.find((p) => own(p) && !claimed.has(p.id) && p.type === s.type && p.name.toLowerCase() === s.name.toLowerCase());
    if (d) {
      out.set(s.id, d);
      claimed.add(d.id);
    }
  }
  return out;
}

/**
 * An item's values on the destination. Select values travel by label: each maps to the
 * destination option with the same label (case-insensitive), and a label the destination
 * lacks becomes a new option there (appended to the destination property's `options`, as
 * create_items does with an unknown label). Values of properties with no match are dropped.
 * Keys that are no property of the source list hold nothing the person can see; they are left behind.
 */
export function moveValues(values: StoredValues, source: Property[], matches: Map<string, Property>): { values: StoredValues; dropped: DroppedValue[] } {
  const out: StoredValues = {};
  const dropped: DroppedValue[] = [];
  for (const s of source) {
    const value = values[s.id];
    if (value === undefined || value === null || isEmptyValue(value) || isReserved(s.id)) continue;
    const d = matches.get(s.id);
    if (!d) {
      dropped.push({ property: s.name, value: isSelectType(s.type) ? shownLabels(s, value) : value });
      continue;
    }
    out[d.id] = isSelectType(s.type) ? optionIdsByLabel(s, d, value) : value;
  }
  return { values: out, dropped };
}

function labelOf(property: Property, id: string): string {
  return property.options?.find((o) => o.id === id)?.label ?? id;
}

function shownLabels(property: Property, value: StoredValue): StoredValue {
  return Array.isArray(value) ? value.map((id) => labelOf(property, id)) : labelOf(property, String(value));
}

function optionIdsByLabel(source: Property, destination: Property, value: StoredValue): StoredValue {
  const options = (destination.options ??= []);
  const map = (id: string): string => {
    const label = labelOf(source, id);
    const found = options.find((o) => o.label.toLowerCase() === label.toLowerCase());
    if (found) return found.id;
    const created: PropertyOption = { id: shortId('o_'), label };
    options.push(created);
    return created.id;
  };
  return Array.isArray(value) ? [...new Set(value.map(map))] : map(String(value));
}
