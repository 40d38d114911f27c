/**
 * The changes feed. A write does not take its feed position when it happens (a transaction
 * that writes early and commits late would then land behind a position a reader has already
 * passed); the trigger only clears the position. The sequencer, run before every feed read
 * under one advisory lock, gives each committed, unpositioned row the next position
 * (`feed_seq`) and a strictly increasing time (`feed_at`). Rows a still-running transaction
 * writes are invisible to it and get a later position once committed, so positions follow
 * commit order and a reader's cursor never skips or repeats a change.
 * @see ../../../shared/ARCHITECTURE.md "Data model" (the changes feed paragraph)
 */
import type { Knex } from 'knex';
import { invalid } from '../http/errors.js';
import { canonicalInstant } from './time.js';

const SEQUENCER_LOCK = 7270011;
const STAMP = `to_char(feed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Gives feed positions to every changed row whose writer has finished. */
export async function sequencePending(db: Knex): Promise<void> {
  await db.transaction(async (trx) => {
    await trx.raw('SELECT pg_advisory_xact_lock(?)', [SEQUENCER_LOCK]);
    await trx.raw(`SET LOCAL listkeeper.sequencing = 'on'`);
    // Rows locked by a writer right now are skipped: that writer's commit clears them again.
    await trx.raw(`
      WITH clock AS (
        UPDATE feed_clock SET last_at = greatest(clock_timestamp(), last_at + interval '1 microsecond')
        WHERE id = 1 AND EXISTS (SELECT 1 FROM items WHERE feed_seq IS NULL)
        RETURNING last_at
      ),
      pending AS (
        SELECT id FROM items
        WHERE feed_seq IS NULL
        ORDER BY change_txid, id
        FOR UPDATE SKIP LOCKED
      )
      UPDATE items SET feed_seq = nextval('feed_seq'), feed_at = (SELECT last_at FROM clock)
      FROM pending WHERE items.id = pending.id`);
  });
}

export type Cursor = { kind: 'instant'; at: string } | { kind: 'position'; at: string; seq: number };

/** Reads `changedSince`: an ISO 8601 instant, or a `nextChangedSince` (`<stamp>~<position>`). */
export function parseCursor(value: string): Cursor {
  const text = value.trim();
  const position = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)~(\d{1,15})$/.exec(text);
  if (position) return { kind: 'position', at: position[1]!, seq: Number(position[2]) };
  const at = canonicalInstant(text);
  if (at) return { kind: 'instant', at };
  throw invalid(`changedSince '${value}' is neither an ISO 8601 instant nor a nextChangedSince from an earlier call; pass one of those verbatim.`, 'changedSince');
}

export interface FeedPage<Row> { rows: (Row & { feed_stamp: string; feed_seq: number })[]; hasMore: boolean; next: string; serverTime: string }

/** One page of the feed over `listIds`, oldest change first, from a consistent snapshot. */
export async function readFeed<Row>(db: Knex, listIds: string[], cursor: Cursor, limit: number): Promise<FeedPage<Row>> {
  await sequencePending(db);
  return db.transaction(
    async (trx) => {
      const clock = (await trx.raw(`SELECT to_char(last_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS stamp, to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS now FROM feed_clock WHERE id = 1`)) as { rows: { stamp: string; now: string }[] };
      const { stamp, now } = clock.rows[0]!;
      const query = trx('items').whereIn('list_id', listIds).whereNotNull('feed_seq').select('*', trx.raw(`${STAMP} AS feed_stamp`)).orderBy('feed_seq').limit(limit + 1);
      if (cursor.kind === 'position') query.where('feed_seq', '>', cursor.seq);
      else query.where('feed_at', '>', cursor.at);
      const rows = (await query) as FeedPage<Row>['rows'];
      const hasMore = rows.length > limit;
      const page = hasMore ? rows.slice(0, limit) : rows;
      const last = page[page.length - 1];
      // With more pending, continue after the last row; else from the clock as this snapshot saw it.
      const next = hasMore && last ? `${last.feed_stamp}~${last.feed_seq}` : stamp;
      return { rows: page, hasMore, next, serverTime: now };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}
