/**
 * Keeping the search index in step with the items table. Every item insert, update and delete, every share
 * change and every list rename leaves an outbox row of topic 'item' in the writing transaction (triggers and
 * src/domain/lists/shares.ts); the consumer here reads the current state of those items and indexes or removes them.
 * A write never waits for the index and never fails because of it: a failing batch stays in the outbox and is
 * retried with backoff (src/jobs/outbox.ts).
 * @see docs/lifecycle.md
 */
import type { Knex } from 'knex';
import type { SearchDoc, SearchIndex } from '../core/search-index.js';
import { isReserved, type Property } from '../domain/lists/properties.js';
import { ITEM_READERS } from '../domain/lists/shares.js';
import { valueText, isEmptyValue, type StoredValues } from '../domain/lists/values.js';

/** Items per call to the index: one embedding run and one index write each. */
const UPSERT_BATCH = 100;
/** Rounds of re-reading items that changed while they were being indexed (see syncItems). */
const MAX_ROUNDS = 3;

interface SearchRow {
  id: string;
  owner_id: string;
  list_id: string;
  title: string | null;
  body: string | null;
  values: StoredValues;
  created_at: Date;
  deleted_at: Date | null;
  list_name: string;
  properties: Property[];
  version: string;
}

/** What the index should hold for `ids`: documents of the live items, and the ids to remove (trashed, purged, unknown). */
export async function loadSearchDocs(db: Knex, ids: string[]): Promise<{ docs: SearchDoc[]; gone: string[]; versions: Map<string, string> }> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return { docs: [], gone: [], versions: new Map() };
  const rows = (await db('items as i')
    .join('lists as l', 'l.id', 'i.list_id')
    .whereIn('i.id', unique)
    .select(
      'i.id',
      'i.owner_id',
      'i.list_id',
      'i.title',
      'i.body',
      'i.values',
      'i.created_at',
      'i.deleted_at',
      'l.name as list_name',
      'l.properties',
      db.raw('i.xmin::text as version'),
      db.raw(`${ITEM_READERS} as readers`),
    )) as (SearchRow & { readers: string[] })[];
  const live = rows.filter((r) => r.deleted_at === null);
  const liveIds = new Set(live.map((r) => r.id));
  return {
    docs: live.map((r) => ({
      itemId: r.id,
      ownerId: r.owner_id,
      readerIds: [...new Set(r.readers)],
      listId: r.list_id,
      listName: r.list_name,
      title: r.title,
      body: r.body,
      values: valuesText(r.values, r.properties),
      createdAt: r.created_at,
    })),
    gone: unique.filter((id) => !liveIds.has(id)),
    versions: new Map(rows.map((r) => [r.id, r.version])),
  };
}

/**
 * Indexes the live items among `ids` and removes the others. Two indexers (two server processes, or the server and
 * `listkeeper search reindex`) may handle the same item at once, and the one that read the older state may write
 * last; so after writing, the items whose row changed since it was read (its xmin moved) are done again.
 */
export async function syncItems(
  db: Knex,
  index: SearchIndex,
  ids: string[],
  options: { reuseVectors?: boolean } = {},
): Promise<{ indexed: number; removed: number }> {
  let pending = [...new Set(ids)];
  let indexed = 0;
  let removed = 0;
  for (let round = 0; round < MAX_ROUNDS && pending.length > 0; round++) {
    const { docs, gone, versions } = await loadSearchDocs(db, pending);
    if (gone.length > 0) await index.remove(gone);
    for (let i = 0; i < docs.length; i += UPSERT_BATCH) await index.upsert(docs.slice(i, i + UPSERT_BATCH), options);
    indexed += docs.length;
    removed += gone.length;
    const now = (await db('items').whereIn('id', pending).select('id', db.raw('xmin::text as version'))) as { id: string; version: string }[];
    pending = now.filter((r) => versions.get(r.id) !== r.version).map((r) => r.id);
  }
  return { indexed, removed };
}

/** An item's row values as text ("Author: Frank Herbert; Year: 1965"); the task columns are not text worth matching. */
export function valuesText(values: StoredValues, properties: Property[]): string {
  const parts: string[] = [];
  for (const p of properties) {
    const value = values[p.id];
    if (isReserved(p.id) || p.type === 'checkbox' || isEmptyValue(value)) continue;
    parts.push(`${p.name}: ${valueText(p, value)}`);
  }
  return parts.join('; ');
}
