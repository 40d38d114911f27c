/**
 * Labels: free words on items of any list. A label is kept with the spelling the person first
 * used (one written in another case takes it), so the catalogue and the filter see one label;
 * the filter compares without case.
 * @see openapi/openapi.yaml components/schemas/Labels, list_labels
 */
import type { Knex } from 'knex';
import { ValueError } from '../lists/values.js';
import { currentReach } from '../reach.js';

export const MAX_LABELS = 20;
export const MAX_LABEL_CHARS = 50;

/** Every label on the person's live items with how many carry it, most used first, then by name. */
export async function labelCatalogue(db: Knex, ownerId: string): Promise<{ name: string; items: number }[]> {
  const reach = currentReach();
  const rows = (
    await db.raw<{ rows: { name: string; items: string }[] }>(
      `SELECT l AS name, count(*) AS items FROM items, unnest(labels) l
        WHERE owner_id = ? AND deleted_at IS NULL AND labels <> '{}' ${reach ? 'AND list_id = ANY(?::uuid[])' : ''}
        GROUP BY l ORDER BY count(*) DESC, lower(l), l`,
      reach ? [ownerId, [...reach]] : [ownerId],
    )
  ).rows;
  return rows.map((r) => ({ name: r.name, items: Number(r.items) }));
}

/** The spellings the person already uses, by lower case. */
export async function labelSpellings(db: Knex, ownerId: string): Promise<Map<string, string>> {
  const rows = (
    await db.raw<{ rows: { name: string }[] }>(
      `SELECT DISTINCT ON (lower(l)) l AS name FROM items, unnest(labels) l
        WHERE owner_id = ? AND deleted_at IS NULL AND labels <> '{}' ORDER BY lower(l), l`,
      [ownerId],
    )
  ).rows;
  return new Map(rows.map((r) => [r.name.toLowerCase(), r.name]));
}

/**
 * Labels as stored: trimmed, each once (without case), in the spelling already in use;
 * throws ValueError naming the limit a list of labels breaks.
 */
export function normalizeLabels(input: readonly string[], spellings: Map<string, string>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of input) {
    const label = raw.trim().replace(/\s+/g, ' ');
    if (!label) throw new ValueError('labels: a label is empty; leave it out.');
    if (label.length > MAX_LABEL_CHARS) throw new ValueError(`labels: '${label.slice(0, 20)}…' is longer than ${MAX_LABEL_CHARS} characters.`);
    const key = label.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const spelled = spellings.get(key) ?? label;
    spellings.set(key, spelled);
    out.push(spelled);
  }
  if (out.length > MAX_LABELS) throw new ValueError(`labels: an item holds at most ${MAX_LABELS} labels; this one would have ${out.length}.`);
  return out;
}

/** A where-clause for items carrying `label` (compared without case). */
export function whereLabel<T extends Knex.QueryBuilder>(q: T, label: string): T {
  return q.whereRaw(`labels <> '{}' AND EXISTS (SELECT 1 FROM unnest(labels) l WHERE lower(l) = lower(?))`, [label.trim()]) as T;
}
