/**
 * The changes feed. A write does not take its feed position when it happens (a transaction
 * that writes early and commits late would then land behind a position a reader has already
 * passed); the trigger only clears the position. The sequencer, run every half second and
 * before a feed read whose scope has a change waiting, under one advisory lock, gives each
 * committed, unpositioned row the next position
 * (`feed_seq`) and a strictly increasing time (`feed_at`). Rows a still-running transaction
 * writes are invisible to it and get a later position once committed, so positions follow
 * commit order and a reader's cursor never skips or repeats a change.
 * @see ARCHITECTURE.md "The changes feed"
 */
import type { Knex } from 'knex';
import { invalid } from '../../core/errors.js';
import { canonicalInstant } from '../time.js';
import { whereInReach } from '../reach.js';

const SEQUENCER_LOCK = 7270011;
const STAMP = `to_char(feed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Rows one sequencer transaction positions at most: a backlog is worked off in steps, between which readers get the lock. */
export const SEQUENCE_BATCH = 5000;

/**
 * Gives feed positions to up to `limit` changed rows whose writers have finished, a whole
 * transaction at a time, oldest transaction first, each transaction's rows in the order it
 * wrote them (`change_seq`, stamped by the write trigger); returns how many it positioned.
 * Positions are handed out in that order explicitly (an UPDATE takes nextval() in whatever
 * order its join yields rows, which interleaved two writes). A transaction some of whose rows
 * another writer holds locked right now waits whole for a later batch, so one write's
 * changes are never split by another's (one write larger than `limit` is the exception: it
 * is positioned across batches). A committed row still waiting here does not break a
 * reader's cursor: it gets a later position than any it could have passed.
 */
export async function sequenceBatch(db: Knex, limit = SEQUENCE_BATCH): Promise<number> {
  return db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [SEQUENCER_LOCK]);
    await trx.raw(`SET LOCAL listkeeper.sequencing = 'on'`);
    // Rows locked by a writer right now are skipped: that writer's commit clears them again.
    const locked = (await trx.raw(
      `SELECT id, change_txid::text AS txid FROM items WHERE feed_seq IS NULL ORDER BY change_txid, change_seq, updated_at, created_seq, id LIMIT ? FOR UPDATE SKIP LOCKED`,
      [limit],
    )) as { rows: { id: string; txid: string }[] };
    if (locked.rows.length === 0) return 0;
    const txids = [...new Set(locked.rows.map((r) => r.txid))];
    const totals = (await trx.raw(
      `SELECT change_txid::text AS txid, count(*)::int AS n FROM items WHERE feed_seq IS NULL AND change_txid::text = ANY(?::text[]) GROUP BY change_txid`,
      [txids],
    )) as { rows: { txid: string; n: number }[] };
    const total = new Map(totals.rows.map((r) => [r.txid, r.n]));
    const held = new Map<string, number>();
    for (const row of locked.rows) held.set(row.txid, (held.get(row.txid) ?? 0) + 1);
    const whole = (txid: string) => held.get(txid) === total.get(txid);
    // The last transaction may be cut by the limit: it waits, unless it alone fills the batch.
    const last = locked.rows[locked.rows.length - 1]!.txid;
    const ready = locked.rows.filter((r) => whole(r.txid) || (r.txid === last && txids.length === 1 && locked.rows.length === limit));
    if (ready.length === 0) return 0;
    const result = (await trx.raw(
      `WITH clock AS (
         UPDATE feed_clock SET last_at = greatest(clock_timestamp(), last_at + interval '1 microsecond') WHERE id = 1 RETURNING last_at
       ),
       base AS (SELECT nextval('feed_seq') AS first),
       bump AS (SELECT setval('feed_seq', (SELECT first FROM base) + ? - 1))
       UPDATE items SET feed_seq = (SELECT first FROM base) + u.n - 1, feed_at = (SELECT last_at FROM clock)
       FROM unnest(?::uuid[]) WITH ORDINALITY AS u(id, n), bump
       WHERE items.id = u.id`,
      [ready.length, ready.map((r) => r.id)],
    )) as { rowCount: number | null };
    return result.rowCount ?? 0;
  });
}

/**
 * Gives feed positions to every changed row whose writer has finished, a batch at a time.
 * When no row waits (what a reader finds nearly always: the sequencer job runs every half
 * second), one indexed look answers, without the sequencer's transaction and lock that
 * every concurrent reader would otherwise queue on.
 */
export async function sequencePending(db: Knex): Promise<number> {
  const waiting = (await db.raw('SELECT EXISTS (SELECT 1 FROM items WHERE feed_seq IS NULL) AS waiting')) as { rows: { waiting: boolean }[] };
  if (!waiting.rows[0]!.waiting) return 0;
  let total = 0;
  for (let n = SEQUENCE_BATCH; n > 0; total += n) n = await sequenceBatch(db);
  return total;
}

export type Cursor = { kind: 'instant'; at: string } | { kind: 'position'; at: string; seq: number };

/** Reads `changedSince`: an ISO 8601 instant, or a `nextChangedSince` (`<stamp>~<position>`). */
export function parseCursor(value: string): Cursor {
  const text = value.trim();
  const position = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)~(\d{1,15})$/.exec(text);
  if (position) return { kind: 'position', at: position[1]!, seq: Number(position[2]) };
  const at = canonicalInstant(text);
  if (at) return { kind: 'instant', at };
  throw invalid(
    `changedSince '${value}' is neither an ISO 8601 instant nor a nextChangedSince from an earlier call; pass one of those verbatim.`,
    'changedSince',
  );
}

export interface FeedPage<Row> {
  rows: (Row & { feed_stamp: string; feed_seq: number })[];
  hasMore: boolean;
  next: string;
  serverTime: string;
}

/** Whose items a feed reads: those on some lists, or every item one person owns. */
export type FeedScope = { listIds: string[] } | { ownerId: string };

/**
 * One page of the feed over `scope`, oldest change first, from a consistent snapshot. The
 * owner scope filters inside that snapshot, so a list made while a reader pages is not missed.
 */
export async function readFeed<Row>(db: Knex, scope: FeedScope, cursor: Cursor, limit: number): Promise<FeedPage<Row>> {
  const first = await readPage<Row>(db, scope, cursor, limit);
  if (!first.pending) return first.page;
  // Changes waited for a position when the page was read: position them, then read again.
  await sequencePending(db);
  return (await readPage<Row>(db, scope, cursor, limit)).page;
}

/**
 * One page as of one snapshot, and whether a change in its scope then waited for a position
 * (the page is then read again after positioning them: a reader sees its own writes). Changes
 * elsewhere do not matter to this reader: they get later positions than any it has read. Asked
 * of every account's changes, nearly every poll would find some once many agents write, and run
 * the sequencer under its one lock.
 */
async function readPage<Row>(db: Knex, scope: FeedScope, cursor: Cursor, limit: number): Promise<{ page: FeedPage<Row>; pending: boolean }> {
  const inScope = (q: Knex.QueryBuilder) => ('ownerId' in scope ? q.where('owner_id', scope.ownerId) : q.whereIn('list_id', scope.listIds));
  const waiting = db('items').whereNull('feed_seq').where(inScope).select(db.raw('1'));
  const query = db('items')
    .where(inScope)
    .modify((q) => whereInReach(q, 'list_id'))
    .whereNotNull('feed_seq')
    .select('*', db.raw(`${STAMP} AS feed_stamp`))
    .orderBy('feed_seq')
    .limit(limit + 1);
  if (cursor.kind === 'position') query.where('feed_seq', '>', cursor.seq);
  else query.where('feed_at', '>', cursor.at);
  // The clock, the rows and whether a change waits for a position, in one statement, so
  // from one snapshot (as a repeatable-read transaction around two statements gave, in one
  // round trip instead of five). A page without rows is the clock's row alone, its item
  // columns null.
  const result = (await db.raw(
    `SELECT to_char(c.last_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS feed_clock_stamp,
            to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS feed_clock_now,
            EXISTS (?) AS feed_pending, page.*
       FROM feed_clock c LEFT JOIN LATERAL (?) page ON true
      WHERE c.id = 1`,
    [waiting, query],
  )) as {
    rows: (FeedPage<Row>['rows'][number] & { feed_clock_stamp: string; feed_clock_now: string; feed_pending: boolean; feed_seq: number | null })[];
  };
  const { feed_clock_stamp: stamp, feed_clock_now: now, feed_pending: pending } = result.rows[0]!;
  const rows = result.rows
    .filter((r) => r.feed_seq !== null)
    .map(({ feed_clock_stamp: _stamp, feed_clock_now: _now, feed_pending: _pending, ...row }) => row as unknown as FeedPage<Row>['rows'][number]);
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  // With more pending, continue after the last row; else from the clock as this snapshot saw it.
  const next = hasMore && last ? `${last.feed_stamp}~${last.feed_seq}` : stamp;
  return { page: { rows: page, hasMore, next, serverTime: now }, pending };
}
