/**
 * The ceiling's statements (bench/ceiling.ts), one per read it answers; `make bench` also runs
 * EXPLAIN ANALYZE on them for a read that grows slower with the data, since listkeeper runs
 * the same statement.
 */
export const SQL = {
  getItem: 'SELECT * FROM items WHERE id = $1 AND deleted_at IS NULL',
  listItems: `SELECT * FROM items WHERE list_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND is_template = false
       AND task_status IN ('todo', 'inProgress') ORDER BY due_at ASC NULLS LAST, created_at ASC, created_seq ASC LIMIT $2`,
  // With the containment test listkeeper adds for the index on values (src/domain/query/where.ts).
  queryCount: `SELECT count(*)::int AS n FROM items WHERE list_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND ("values"->>'p_state') = $2 AND "values" @> jsonb_build_object('p_state', $2::text)`,
  querySum: `SELECT count(*)::int AS n, coalesce(sum(("values"->>'p_pages')::numeric), 0)::float8 AS total FROM items WHERE list_id = $1 AND deleted_at IS NULL AND archived_at IS NULL AND ("values"->>'p_state') = $2 AND "values" @> jsonb_build_object('p_state', $2::text)`,
  feed: 'SELECT * FROM items WHERE list_id = $1 AND feed_seq > 0 ORDER BY feed_seq LIMIT $2',
} as const;
