/**
 * Rebuilding the search index from the items table: `listkeeper search reindex`, and the server itself when the
 * index is missing items (items saved before search indexed them) or was built with another backend or embedder.
 * Progress and the backend and embedder that built the index live in `search_state`.
 * @see ../../docs/search.md "Rebuilding the index"
 */
import type { Knex } from 'knex';
import type { SearchIndex } from '../core/search-index.js';
import { syncItems } from './sync.js';

/** What an index was built with: vectors of another embedder cannot be compared with this one's. */
export interface IndexIdentity {
  backend: string;
  embedder: string;
  dimensions: number;
}

const IDENTITY_KEY = 'index';
const FULL = 'reindex:all';

interface Checkpoint {
  /** Items are visited in id order; everything up to this id is done. */
  afterId: string | null;
  done: number;
  identity: IndexIdentity;
  startedAt: string;
  /** A rebuild after a model change: what built the index before, whose vectors the items not done yet still hold. */
  previous?: IndexIdentity;
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
  /** Stops after the batch in hand, keeping the checkpoint for the next run. */
  signal?: AbortSignal;
}

/** Thrown when another process is rebuilding the same scope. */
export class ReindexBusyError extends Error {}

/** Reads the backend and embedder the index was built with, if recorded. */
export async function storedIdentity(db: Knex): Promise<IndexIdentity | null> {
  return readState<IndexIdentity>(db, IDENTITY_KEY);
}

export function sameIdentity(a: IndexIdentity, b: IndexIdentity): boolean {
  return a.backend === b.backend && a.embedder === b.embedder && a.dimensions === b.dimensions;
}

/**
 * Called at start: records what this process indexes with, and when the index cannot be trusted to hold every item
 * in this form (items saved before search indexed them, or an index built with another backend or embedder),
 * leaves a fresh checkpoint for a full rebuild and returns why; `continueReindex` then does the work.
 * Processes starting together agree: the first one plans, the others find the identity already theirs.
 */
export async function planReindex(db: Knex, identity: IndexIdentity): Promise<string | null> {
  return db.transaction(async (trx) => {
    await trx.raw('lock table search_state in share row exclusive mode');
    const stored = await readState<IndexIdentity>(trx, IDENTITY_KEY);
    if (stored && sameIdentity(stored, identity)) return null;
    await saveState(trx, IDENTITY_KEY, identity);
    if (!(await trx('items').first('id'))) return null;
    const previous = stored && stored.backend === identity.backend && stored.dimensions > 0 ? { previous: stored } : {};
    await saveState(trx, FULL, { afterId: null, done: 0, identity, startedAt: new Date().toISOString(), ...previous } satisfies Checkpoint);
    return stored ? `the index was built with ${describe(stored)} and this process uses ${describe(identity)}` : 'items were saved before search indexed them';
  });
}

/**
 * Works through an unfinished rebuild of all accounts (planned at start, or a `listkeeper search reindex` that was
 * interrupted), unless another process is already on it; null when there is nothing to do or it is busy.
 */
export async function continueReindex(
  db: Knex,
  index: SearchIndex,
  identity: IndexIdentity,
  options: Pick<ReindexOptions, 'onProgress' | 'batchSize' | 'signal'> = {},
): Promise<ReindexProgress | null> {
  if (!(await readState<Checkpoint>(db, FULL))) return null;
  try {
    return await reindex(db, index, identity, options);
  } catch (err) {
    if (err instanceof ReindexBusyError) return null;
    throw err;
  }
}

/**
 * Indexes every item of the scope (live ones upserted, trashed ones removed) in id order, a batch at a time,
 * saving a checkpoint after each batch: an interrupted run continues after the last finished batch. The index stays
 * searchable throughout, unless `clear` emptied it first. One run per scope at a time across processes (an advisory
 * lock): a second one is refused with ReindexBusyError.
 */
export async function reindex(db: Knex, index: SearchIndex, identity: IndexIdentity, options: ReindexOptions = {}): Promise<ReindexProgress> {
  if (options.clear && options.ownerId) throw new Error('--clear empties the whole index, so it only goes with a reindex of all accounts.');
  const key = options.ownerId ? `reindex:${options.ownerId}` : FULL;
  return withLock(db, key, () => run(db, index, identity, key, options));
}

async function run(db: Knex, index: SearchIndex, identity: IndexIdentity, key: string, options: ReindexOptions): Promise<ReindexProgress> {
  const batchSize = options.batchSize ?? 200;
  const saved = await readState<Checkpoint>(db, key);
  let checkpoint = options.restart ? null : saved;
  // A checkpoint from a run with another embedder is useless: its vectors do not mix with ours.
  if (checkpoint && !sameIdentity(checkpoint.identity, identity)) checkpoint = null;
  if (!checkpoint) {
    if (options.clear) {
      if (!index.clear) throw new Error(`The ${index.name} index cannot be cleared.`);
      await index.clear();
    }
    // Starting over keeps what the items not done yet were embedded with (searches still compare them with it).
    const previous = saved?.previous && sameIdentity(saved.identity, identity) && !options.clear ? { previous: saved.previous } : {};
    checkpoint = { afterId: null, done: 0, identity, startedAt: new Date().toISOString(), ...previous };
    await saveState(db, key, checkpoint);
  }
  const scope = (q: Knex.QueryBuilder) => (options.ownerId ? q.where('owner_id', options.ownerId) : q);
  const remaining = Number(((await scope(db('items')).modify(after, checkpoint.afterId).count({ n: '*' }).first()) as { n: string }).n);
  const progress: ReindexProgress = { done: checkpoint.done, total: checkpoint.done + remaining, resumedAt: checkpoint.done };
  options.onProgress?.({ ...progress });
  while (!options.signal?.aborted) {
    const ids = (await scope(db('items')).modify(after, checkpoint.afterId).orderBy('id').limit(batchSize).pluck('id')) as string[];
    if (ids.length === 0) {
      await db('search_state').where({ key }).delete();
      if (!options.ownerId) {
        await saveState(db, IDENTITY_KEY, identity);
        // Every item now has this model's vectors: the index may drop what it kept of other models'.
        await index.setPrevious?.(null);
      }
      break;
    }
    await syncItems(db, index, ids);
    checkpoint = { ...checkpoint, afterId: ids[ids.length - 1]!, done: checkpoint.done + ids.length };
    await saveState(db, key, checkpoint);
    progress.done = checkpoint.done;
    // Items created during the run land after the last id (ids are random) or before it (the outbox indexes those).
    progress.total = Math.max(progress.total, progress.done);
    options.onProgress?.({ ...progress });
  }
  return progress;
}

/** Runs `work` holding a session advisory lock named after `key`, on a connection kept for the purpose. */
async function withLock<T>(db: Knex, key: string, work: () => Promise<T>): Promise<T> {
  const conn = (await db.client.acquireConnection()) as { query(sql: string, values: unknown[]): Promise<{ rows: { ok: boolean }[] }> };
  const name = `listkeeper.search.${key}`;
  try {
    const { rows } = await conn.query('select pg_try_advisory_lock(hashtext($1)) as ok', [name]);
    if (!rows[0]?.ok) throw new ReindexBusyError(`Another process is rebuilding the search index (${key}); wait for it to finish.`);
    try {
      return await work();
    } finally {
      await conn.query('select pg_advisory_unlock(hashtext($1)) as ok', [name]);
    }
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/** The rebuild of all accounts, if one is unfinished: what it builds with, how far it got, what built the index before. */
export interface RebuildStatus {
  identity: IndexIdentity;
  previous: IndexIdentity | null;
  done: number;
  /** Items left after the last finished batch. */
  remaining: number;
  startedAt: string;
  updatedAt: string;
}

/** The unfinished rebuild of all accounts, or null (search_state, as saved after each batch). */
export async function rebuildStatus(db: Knex): Promise<RebuildStatus | null> {
  const row = (await db('search_state').where({ key: FULL }).first('value', 'updated_at')) as { value: Checkpoint; updated_at: Date } | undefined;
  if (!row) return null;
  const { afterId, done, identity, startedAt, previous } = row.value;
  const remaining = Number(((await db('items').modify(after, afterId).count({ n: '*' }).first()) as { n: string }).n);
  return { identity, previous: previous ?? null, done, remaining, startedAt, updatedAt: new Date(row.updated_at).toISOString() };
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
