/**
 * Rebuilding the search index from the items table (`listkeeper search reindex`), and remembering which backend
 * and embedder built it, so a change of either is noticed. Both live in `search_state`.
 * @see ../../README.md "Search"
 */
import type { Knex } from 'knex';
import type { SearchIndex } from './types.js';
import { syncItems } from './sync.js';

/** What an index was built with: vectors of another embedder cannot be compared with this one's. */
export interface IndexIdentity {
  backend: string;
  embedder: string;
  dimensions: number;
}

const IDENTITY_KEY = 'index';

interface Checkpoint {
  /** Items are visited in id order; everything up to this id is done. */
  afterId: string | null;
  done: number;
  identity: IndexIdentity;
  startedAt: string;
}

export interface ReindexProgress {
  done: number;
  total: number;
  /** Items already done by an earlier, interrupted run. */
  resumedAt: number;
}

export interface ReindexOptions {
  /** Only the items of this account; all items when left out. */
  ownerId?: string;
  /** Items per step: one read, one embedding run, one checkpoint. */
  batchSize?: number;
  /** Start from the first item even when an earlier run left a checkpoint. */
  restart?: boolean;
  /** Empty the index first (all accounts only): drops entries of items that no longer exist. */
  clear?: boolean;
  onProgress?(progress: ReindexProgress): void;
}

/** Reads the backend and embedder the index was built with, if recorded. */
export async function storedIdentity(db: Knex): Promise<IndexIdentity | null> {
  const row = (await db('search_state').where({ key: IDENTITY_KEY }).first('value')) as { value: IndexIdentity } | undefined;
  return row?.value ?? null;
}

export async function recordIdentity(db: Knex, identity: IndexIdentity): Promise<void> {
  await saveState(db, IDENTITY_KEY, identity);
}

export function sameIdentity(a: IndexIdentity, b: IndexIdentity): boolean {
  return a.backend === b.backend && a.embedder === b.embedder && a.dimensions === b.dimensions;
}

/**
 * Called at start: records the identity of a fresh index, and returns a sentence for the log when the index was
 * built with another backend or embedder (its vectors or contents no longer fit; searches fall back to what still
 * matches until `listkeeper search reindex` has run).
 */
export async function checkIdentity(db: Knex, identity: IndexIdentity): Promise<string | null> {
  const stored = await storedIdentity(db);
  if (!stored) {
    await recordIdentity(db, identity);
    return null;
  }
  if (sameIdentity(stored, identity)) return null;
  return (
    `The search index was built with ${describe(stored)} and this process uses ${describe(identity)}; ` +
    `run 'listkeeper search reindex --clear' to rebuild it (until then results come from what still matches).`
  );
}

/**
 * Indexes every item of the scope (live ones upserted, trashed ones removed) in id order, a batch at a time,
 * saving a checkpoint after each batch: an interrupted run continues after the last finished batch. The index stays
 * searchable throughout, unless `clear` emptied it first.
 */
export async function reindex(db: Knex, index: SearchIndex, identity: IndexIdentity, options: ReindexOptions = {}): Promise<ReindexProgress> {
  const batchSize = options.batchSize ?? 200;
  const key = `reindex:${options.ownerId ?? 'all'}`;
  if (options.clear && options.ownerId) throw new Error('--clear empties the whole index, so it only goes with a reindex of all accounts.');
  let checkpoint = options.restart ? null : await readState<Checkpoint>(db, key);
  // A checkpoint from a run with another embedder is useless: its vectors do not mix with ours.
  if (checkpoint && !sameIdentity(checkpoint.identity, identity)) checkpoint = null;
  if (!checkpoint) {
    if (options.clear) {
      if (!index.clear) throw new Error(`The ${index.name} index cannot be cleared.`);
      await index.clear();
    }
    checkpoint = { afterId: null, done: 0, identity, startedAt: new Date().toISOString() };
    await saveState(db, key, checkpoint);
  }
  const scope = (q: Knex.QueryBuilder) => (options.ownerId ? q.where('owner_id', options.ownerId) : q);
  const remaining = Number(((await scope(db('items')).modify(after, checkpoint.afterId).count({ n: '*' }).first()) as { n: string }).n);
  const progress: ReindexProgress = { done: checkpoint.done, total: checkpoint.done + remaining, resumedAt: checkpoint.done };
  options.onProgress?.({ ...progress });
  for (;;) {
    const ids = (await scope(db('items')).modify(after, checkpoint.afterId).orderBy('id').limit(batchSize).pluck('id')) as string[];
    if (ids.length === 0) break;
    await syncItems(db, index, ids);
    checkpoint = { ...checkpoint, afterId: ids[ids.length - 1]!, done: checkpoint.done + ids.length };
    await saveState(db, key, checkpoint);
    progress.done = checkpoint.done;
    // Items created during the run land after the last id (ids are random) or before it; count the former in.
    progress.total = Math.max(progress.total, progress.done);
    options.onProgress?.({ ...progress });
  }
  await db('search_state').where({ key }).delete();
  if (!options.ownerId) await recordIdentity(db, identity);
  return progress;
}

function after(q: Knex.QueryBuilder, afterId: string | null): void {
  if (afterId) q.where('id', '>', afterId);
}

function describe(identity: IndexIdentity): string {
  return `${identity.backend} and the ${identity.embedder} embedder${identity.dimensions ? ` (${identity.dimensions} dimensions)` : ''}`;
}

async function readState<T>(db: Knex, key: string): Promise<T | null> {
  const row = (await db('search_state').where({ key }).first('value')) as { value: T } | undefined;
  return row?.value ?? null;
}

async function saveState(db: Knex, key: string, value: unknown): Promise<void> {
  await db('search_state')
    .insert({ key, value: JSON.stringify(value), updated_at: db.fn.now() })
    .onConflict('key')
    .merge();
}
